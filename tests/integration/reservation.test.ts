import { afterAll, describe, expect, it } from 'vitest';
import { disconnectDb, getPool, getPrisma, getSqlDb } from '@/server/db/client';
import type { BillingRequest } from '@/server/domain/billing/reservation';
import { reserve, type OpenReservation } from '@/server/domain/billing/reserve';
import { sweepExpiredHolds } from '@/server/domain/billing/sweep-expired-holds';
import { callEngine, engineFailureOf } from '@/server/domain/generation/call-engine';
import { createTestKey, newIdempotencyKey, remainingUnits } from '../helpers/api';

// Billing reads reserve → run → settle: `reserve` opens a reservation whose `settle` and `abandon`
// are the only ways to end it, each at most once; the engine call returns what it learned (and a
// failed one carries it on its error) instead of filling an out-parameter.

afterAll(() => disconnectDb());

const ENGINES = { tried: ['local'], answered: 'local' };

async function reserved(units = 3): Promise<{ reservation: OpenReservation; keyId: string }> {
  const { id } = await createTestKey({ quota: 10 });
  const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id } });
  const request: BillingRequest = {
    key: { id, requestsPerMinute: 1000, concurrency: 5, packageVersionId: key.packageVersionId },
    requestId: `req_${newIdempotencyKey()}`,
    scope: { apiKeyId: id, method: 'POST', path: '/v1/text/generate', key: newIdempotencyKey() },
    fingerprint: 'fingerprint',
    charge: { operation: 'text.generate', units, engine: 'local' },
  };
  const outcome = await reserve(getSqlDb(), request);
  if (outcome.kind !== 'reserved') throw new Error('expected a reservation');
  return { reservation: outcome.reservation, keyId: id };
}

const usage = (apiKeyId: string) =>
  getPrisma().usageEvent.findMany({ where: { apiKeyId }, select: { outcome: true, units: true, engine: true, enginesTried: true } });

describe('an open reservation ends once', () => {
  it('settled: charged with the engines the call reported; abandon then does nothing and a second settle is refused', async () => {
    const { reservation, keyId } = await reserved();
    expect(await remainingUnits(keyId)).toBe(7);
    const body = JSON.parse(await reservation.settle({ kind: 'generation', output: { text: 'hi' }, engines: ENGINES }));
    expect(body.usage).toEqual({ charged_units: 3, remaining_units: 7 });
    await reservation.abandon({ error: new Error('late') });
    expect(await remainingUnits(keyId)).toBe(7);
    await expect(reservation.settle({ kind: 'generation', output: {}, engines: ENGINES })).rejects.toThrow('ended already');
    const answer = { output: { text: 'h' }, events: '' };
    await expect(reservation.markDelivered({ engine: 'local', enginesTried: ['local'] }, answer)).rejects.toThrow('ended already');
    expect(await usage(keyId)).toEqual([{ outcome: 'succeeded', units: 3, engine: 'local', enginesTried: ['local'] }]);
  });

  it('abandoned: the units back, the failed attempt recorded with its engines; settle is refused, abandon again does nothing', async () => {
    const { reservation, keyId } = await reserved();
    await reservation.abandon({ error: new Error('boom'), engines: { tried: ['a:m', 'local'] } });
    await reservation.abandon({ error: new Error('again') });
    expect(await remainingUnits(keyId)).toBe(10);
    await expect(reservation.settle({ kind: 'generation', output: {}, engines: ENGINES })).rejects.toThrow('ended already');
    expect(await usage(keyId)).toEqual([{ outcome: 'failed', units: 0, engine: 'local', enginesTried: ['a:m', 'local'] }]);
  });

  it('a settle that failed (the sweeper returned the hold) leaves it open for abandon, which frees the key; the lost call is recorded once', async () => {
    const { reservation, keyId } = await reserved();
    await getPool().query(`UPDATE unit_holds SET lease_until = now() - interval '1 second' WHERE api_key_id = $1`, [keyId]);
    await sweepExpiredHolds(getSqlDb());
    await expect(reservation.settle({ kind: 'generation', output: {}, engines: ENGINES })).rejects.toMatchObject({
      code: 'provider_unavailable',
    });
    await reservation.abandon();
    const { rows } = await getPool().query('SELECT count(*)::int AS n FROM idempotency_records WHERE id = $1', [reservation.recordId]);
    expect(rows[0].n).toBe(0);
    expect(await remainingUnits(keyId)).toBe(10);
    // The sweeper's record of the call it returned (0 units), and nothing more from the late abandon.
    expect(await usage(keyId)).toEqual([{ outcome: 'failed', units: 0, engine: 'local', enginesTried: ['local'] }]);
  });
});

describe('an engine call returns what it learned', () => {
  const text = { input: 'hello there', outputFormat: 'text' as const };

  it('the answer with the engines tried (a fallback included), the one that answered and its usage', async () => {
    const call = await callEngine(getSqlDb(), ['nowhere:model', 'local'], (engine) => engine.generateText(text, AbortSignal.timeout(5000)));
    expect(call.value.text.length).toBeGreaterThan(0);
    expect(call.engines).toMatchObject({ tried: ['nowhere:model', 'local'], answered: 'local' });
    expect(call.engines.metering).toMatchObject({ cost: 0, unpriced: false });
  });

  it('a failed call throws its error with its report beside it', async () => {
    const error = await callEngine(getSqlDb(), 'nowhere:model', (engine) => engine.generateText(text, AbortSignal.timeout(5000))).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const failure = engineFailureOf(error);
    expect(failure.error).toMatchObject({ code: 'provider_unavailable' });
    expect(failure.engines).toEqual({ tried: ['nowhere:model'] });
    const other = new Error('not from an engine call');
    expect(engineFailureOf(other)).toEqual({ error: other });
  });
});
