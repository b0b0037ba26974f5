import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as portalTrpcPost } from '@/app/api/portal/trpc/[trpc]/route';
import { disconnectDb, getPool, getPrisma } from '@/server/db/client';
import { stopJobQueue } from '@/server/domain/jobs/job-queue';
import { createCaller } from '@/server/trpc/app-router';
import { createInnerContext } from '@/server/trpc/context';
import { createPortalInnerContext } from '@/server/trpc/portal/portal-context';
import { createPortalCaller } from '@/server/trpc/portal/portal-router';
import { expectTrpcError, operatorCaller, usage } from '../trpc/helpers';
import type { SmtpInbox } from '../../helpers/smtp-inbox';
import { changeWithCode, keyOnFreshPackage, portalSignIn, turnMailOff, turnMailOn, webhookWithCode } from './portal-helpers';
import { openWebhookSecret } from '@/server/domain/webhooks/webhook-secrets';

// Nothing of another key or of the operator is reachable from a portal session, and nothing of
// the portal from an operator's; the portal's job webhook follows the operator's rules. A leaked
// key learns no more here than through /v1: no job, upload or delivery's job id, no file name.

let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await turnMailOn();
});
afterAll(async () => {
  await turnMailOff(inbox);
  await stopJobQueue();
  await disconnectDb();
});

/** A delivery of the key that used up its attempts, as the webhook worker leaves one. */
async function delivery(apiKeyId: string) {
  const id = `msg_${randomUUID().replaceAll('-', '')}`;
  await getPool().query(
    `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, status, attempts, last_status, last_error)
     VALUES ($1, $2, $3, 'job.failed', 'failed', 5, 500, 'HTTP 500')`,
    [id, apiKeyId, `job_${randomUUID().replaceAll('-', '').slice(0, 24)}`],
  );
  return id;
}

describe('a portal session sees and changes only its own key', () => {
  it("shows the key's own package, units and calls, never another key's", async () => {
    const a = await keyOnFreshPackage('iso-a', 30);
    const b = await keyOnFreshPackage('iso-b', 40);
    await usage(a.id, 'succeeded', 2, 'text.generate');
    await usage(b.id, 'succeeded', 7, 'code.generate');
    const { caller } = await portalSignIn(a.secret);
    const overview = await caller.overview();
    expect(overview.key).toMatchObject({ remaining_units: 30, total_units: 30, package: { slug: a.slug } });
    expect(overview.calls.map((call) => [call.operation, call.units])).toEqual([['text.generate', 2]]);
    expect(overview.daily.at(-1)).toMatchObject({ units: 2, requests: 1 });
    const shown = JSON.stringify(overview);
    for (const secretOrId of [b.id, b.slug, b.secret]) expect(shown).not.toContain(secretOrId);
    // No engine or provider cost: those are the operator's.
    expect(shown).not.toContain('"engine"');
    expect(shown).not.toContain('provider_cost');
  });

  it("refuses any key id in an input, and another key's delivery by id", async () => {
    const a = await keyOnFreshPackage('iso-a');
    const b = await keyOnFreshPackage('iso-b');
    const bDelivery = await delivery(b.id);
    const { caller } = await portalSignIn(a.secret);
    const loose = caller as unknown as Record<string, (input: unknown) => Promise<unknown>>;
    for (const procedure of ['overview', 'webhook', 'requestChange', 'confirmChange', 'sales']) {
      await expectTrpcError(loose[procedure]!({ id: b.id }), 'BAD_REQUEST');
    }
    await expectTrpcError(loose.requestChange!({ action: 'set_webhook', id: b.id, url: 'https://hooks.example.com/b' }), 'BAD_REQUEST');
    await expectTrpcError(loose.requestChange!({ action: 'rotate_key', id: b.id }), 'BAD_REQUEST');
    await expectTrpcError(caller.resendDelivery({ deliveryId: bDelivery }), 'NOT_FOUND', 'not_found');
    expect(await getPrisma().webhookDelivery.findUniqueOrThrow({ where: { id: bDelivery } })).toMatchObject({
      status: 'failed',
      attempts: 5,
    });
    const bKey = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: b.id } });
    expect(bKey.webhookUrl).toBeNull();
  });

  it('operator procedures refuse a portal session, and portal procedures an operator', async () => {
    const a = await keyOnFreshPackage('iso-a');
    const { session } = await portalSignIn(a.secret);
    const asOperator = createCaller(createPortalInnerContext(session));
    await expectTrpcError(asOperator.keys.list({}), 'UNAUTHORIZED');
    await expectTrpcError(asOperator.keys.get({ id: a.id }), 'UNAUTHORIZED');
    await expectTrpcError(asOperator.keys.revoke({ id: a.id }), 'UNAUTHORIZED');
    await expectTrpcError(asOperator.keys.topUp({ id: a.id, units: 5 }), 'UNAUTHORIZED');
    const { operator } = await operatorCaller('owner');
    const operatorSession = {
      operatorId: operator.id,
      email: operator.email,
      role: operator.role,
      expires: new Date(Date.now() + 60_000).toISOString(),
    };
    const portalAsOperator = createPortalCaller(createInnerContext(operatorSession));
    await expectTrpcError(portalAsOperator.overview(), 'UNAUTHORIZED');
    await expectTrpcError(portalAsOperator.requestChange({ action: 'rotate_key' }), 'UNAUTHORIZED');
  });

  it("another site's POST to the portal's API is 403 before anything runs", async () => {
    const refused = await portalTrpcPost(
      new Request('http://portal.example.com/api/portal/trpc/requestChange', {
        method: 'POST',
        headers: { host: 'portal.example.com', origin: 'https://evil.example', 'content-type': 'application/json' },
        body: '{"action":"rotate_key"}',
      }),
    );
    expect(refused.status).toBe(403);
  });
});

describe('every portal procedure refuses a caller without a live portal session', () => {
  const caller = createPortalCaller(createPortalInnerContext(null));
  const calls: [string, () => Promise<unknown>][] = [
    ['overview', () => caller.overview()],
    ['requestChange', () => caller.requestChange({ action: 'rotate_key' })],
    ['confirmChange', () => caller.confirmChange({ code: 'ABCD-EFGH' })],
    ['webhook', () => caller.webhook()],
    ['resendDelivery', () => caller.resendDelivery({ deliveryId: `msg_${'0'.repeat(32)}` })],
    ['sales', () => caller.sales()],
    ['buyTopUp', () => caller.buyTopUp({ units: 1000 })],
    ['topUpReturn', () => caller.topUpReturn({ sessionId: 'cs_test_x' })],
  ];
  it.each(calls)('%s', async (_name, call) => {
    await expectTrpcError(call(), 'UNAUTHORIZED');
  });

  it('covers every procedure of the router', async () => {
    const { portalRouter } = await import('@/server/trpc/portal/portal-router');
    expect(Object.keys(portalRouter._def.procedures).sort()).toEqual(calls.map(([name]) => name).sort());
  });
});

describe("the portal's job webhook", () => {
  it('sets, rotates and clears the endpoint by the operator rules, each confirmed by e-mail, audited as the customer', async () => {
    const a = await keyOnFreshPackage('hook');
    const { caller } = await portalSignIn(a.secret);
    // A refused URL is refused before any e-mail goes out.
    await expectTrpcError(
      caller.requestChange({ action: 'set_webhook', url: 'http://hooks.example.com/x' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    await expectTrpcError(
      caller.requestChange({ action: 'set_webhook', url: 'https://192.168.0.10/x' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(inbox.mailTo(a.email)).toHaveLength(0);
    const set = await webhookWithCode(caller, inbox, a.email, { action: 'set_webhook', url: 'https://hooks.example.com/wgs' });
    expect(set.secret).toMatch(/^whsec_/);
    expect(await caller.webhook()).toEqual({
      url: 'https://hooks.example.com/wgs',
      host: 'hooks.example.com',
      disabled_at: null,
      deliveries: [],
    });
    const rotated = await webhookWithCode(caller, inbox, a.email, { action: 'rotate_webhook_secret' });
    expect(rotated.secret).not.toBe(set.secret);
    const sealed = await getPrisma().webhookSecret.findUniqueOrThrow({ where: { apiKeyId: a.id } });
    expect(openWebhookSecret(a.id, { iv: sealed.iv, ciphertext: sealed.ciphertext, auth_tag: sealed.authTag })).toBe(rotated.secret);

    const own = await delivery(a.id);
    const deliveries = (await caller.webhook()).deliveries;
    expect(deliveries.map((row) => row.id)).toEqual([own]);
    expect(deliveries[0]).not.toHaveProperty('job_id');
    await caller.resendDelivery({ deliveryId: own });
    expect(await getPrisma().webhookDelivery.findUniqueOrThrow({ where: { id: own } })).toMatchObject({ status: 'pending', attempts: 0 });

    await changeWithCode(caller, inbox, a.email, { action: 'clear_webhook' });
    expect((await caller.webhook()).url).toBeNull();
    await expectTrpcError(caller.requestChange({ action: 'rotate_webhook_secret' }), 'UNPROCESSABLE_CONTENT');
    const actions = await getPrisma().auditLog.findMany({ where: { targetId: a.id, actorType: 'customer' }, orderBy: { id: 'asc' } });
    expect(actions.map((entry) => entry.action)).toEqual([
      'key.webhook.set',
      'key.webhook.rotate',
      'key.webhook.resend',
      'key.webhook.clear',
    ]);
    expect(JSON.stringify(actions.map((entry) => [entry.before, entry.after]))).not.toContain('whsec_');
  });
});
