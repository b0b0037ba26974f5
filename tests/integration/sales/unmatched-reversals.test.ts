import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPrisma, getSqlDb } from '@/server/db/client';
import { deleteUnmatchedReversals, UNMATCHED_REVERSAL_DAYS } from '@/server/domain/sales/unmatched-reversals';
import { createTestKey } from '../../helpers/api';

// payment_reversals kept every refund and dispute of a shared Stripe account's other sales for
// ever (outside audit). One no purchase names goes after UNMATCHED_REVERSAL_DAYS; one a purchase
// names, or a recent one (its fulfilment may still come), stays.

afterAll(() => disconnectDb());

const intent = () => `pi_test_${randomBytes(8).toString('hex')}`;
const DAY_MS = 86_400_000;

describe('refunds and disputes of payments no purchase names', () => {
  it(`are deleted ${UNMATCHED_REVERSAL_DAYS} days on; one a purchase names, or a recent one, is kept`, async () => {
    const prisma = getPrisma();
    const key = await createTestKey();
    const { packageVersionId } = await prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });
    const old = new Date(Date.now() - (UNMATCHED_REVERSAL_DAYS + 1) * DAY_MS);
    const [stranger, sold, recent] = [intent(), intent(), intent()];
    await prisma.purchase.create({
      data: { kind: 'package', packageVersionId, units: 10, amount: 100, currency: 'USD', paymentIntentId: sold },
    });
    await prisma.paymentReversal.createMany({
      data: [
        { paymentIntentId: stranger, amountRefunded: 100, createdAt: old },
        { paymentIntentId: sold, amountRefunded: 100, createdAt: old },
        { paymentIntentId: recent, amountRefunded: 100 },
      ],
    });
    expect(await deleteUnmatchedReversals(getSqlDb())).toBeGreaterThanOrEqual(1);
    const left = await prisma.paymentReversal.findMany({ where: { paymentIntentId: { in: [stranger, sold, recent] } } });
    expect(left.map((row) => row.paymentIntentId).sort()).toEqual([sold, recent].sort());
  });
});
