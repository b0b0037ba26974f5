import { afterAll, describe, expect, it } from 'vitest';
import { getPool, getPrisma } from '@/server/db/client';
import { stopJobQueue } from '@/server/domain/queue/job-queue';
import { anonymousCaller, expectTrpcError, operatorWithPackage } from './helpers';

// The key page's webhook procedures: set (the secret returned once), rotate, clear, the latest
// deliveries and Resend; public endpoints only here (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset).

afterAll(async () => {
  await stopJobQueue();
});

describe('keys.webhook procedures', () => {
  it('set, rotate and clear; private or http endpoints refused; the secret never read back', async () => {
    const { caller, slug } = await operatorWithPackage('hook');
    const key = await caller.keys.issue({ packageSlug: slug });

    await expectTrpcError(
      caller.keys.setWebhook({ id: key.id, url: 'http://hooks.example.com/x' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    await expectTrpcError(
      caller.keys.setWebhook({ id: key.id, url: 'https://192.168.0.10/x' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    await expectTrpcError(
      caller.keys.setWebhook({ id: key.id, url: 'https://169.254.169.254/x' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );

    // Said in plain words, as the dashboard's other forms say theirs (it was zod's own sentence; dashboard audit).
    const empty = await expectTrpcError(caller.keys.setWebhook({ id: key.id, url: ' ' }), 'BAD_REQUEST');
    const firstIssue = (error: { cause?: unknown }) => (error.cause as { issues: { message: string }[] }).issues[0]!.message;
    expect(firstIssue(empty)).toBe('The endpoint URL is required: an https:// address.');
    const long = await expectTrpcError(caller.keys.setWebhook({ id: key.id, url: `https://a.example/${'a'.repeat(2000)}` }), 'BAD_REQUEST');
    expect(firstIssue(long)).toBe('The endpoint URL is at most 2,000 characters.');

    const set = await caller.keys.setWebhook({ id: key.id, url: 'https://hooks.example.com/wgs' });
    expect(set.secret).toMatch(/^whsec_/);
    const read = await caller.keys.webhook({ id: key.id });
    expect(read).toEqual({ url: 'https://hooks.example.com/wgs', host: 'hooks.example.com', disabled_at: null, deliveries: [] });
    expect(JSON.stringify(await caller.keys.get({ id: key.id }))).not.toContain('whsec_');

    const rotated = await caller.keys.rotateWebhookSecret({ id: key.id });
    expect(rotated.secret).not.toBe(set.secret);
    await caller.keys.clearWebhook({ id: key.id });
    expect((await caller.keys.webhook({ id: key.id })).url).toBeNull();
    // Clearing again changes nothing, and the audit log says it once.
    await caller.keys.clearWebhook({ id: key.id });
    expect(await getPrisma().auditLog.count({ where: { action: 'key.webhook.clear', targetId: key.id } })).toBe(1);
    await expectTrpcError(caller.keys.rotateWebhookSecret({ id: key.id }), 'UNPROCESSABLE_CONTENT');
    await expectTrpcError(anonymousCaller().keys.webhook({ id: key.id }), 'UNAUTHORIZED');
    // A revoked key runs no jobs: it takes no endpoint (the form took one and showed a secret; dashboard audit).
    await caller.keys.revoke({ id: key.id });
    const refused = await expectTrpcError(
      caller.keys.setWebhook({ id: key.id, url: 'https://hooks.example.com/revoked' }),
      'UNPROCESSABLE_CONTENT',
      'validation_error',
    );
    expect(refused.message).toBe(`API key ${key.id} is revoked: it runs no jobs, so it takes no webhook endpoint.`);
    expect((await caller.keys.webhook({ id: key.id })).url).toBeNull();
  });

  it('clearing the endpoint skips the deliveries waiting to be sent at once, not at their next attempt (webhooks audit: one waiting out a Retry-After went to the endpoint set next)', async () => {
    const { caller, slug } = await operatorWithPackage('hook');
    const key = await caller.keys.issue({ packageSlug: slug });
    await caller.keys.setWebhook({ id: key.id, url: 'https://hooks.example.com/wgs' });
    const waiting = `msg_${key.id.replace(/-/g, '')}`;
    const sending = `msg_${key.id.replace(/-/g, '').split('').reverse().join('')}`;
    await getPool().query(
      `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, status, attempts, next_attempt_at, claimed_until)
       VALUES ($1, $3, 'job_aaaaaaaaaaaaaaaaaaaaaaab', 'job.succeeded', 'pending', 1, now() + interval '30 seconds', NULL),
              ($2, $3, 'job_aaaaaaaaaaaaaaaaaaaaaaac', 'job.succeeded', 'pending', 1, now(), now() + interval '20 seconds')`,
      [waiting, sending, key.id],
    );
    await caller.keys.clearWebhook({ id: key.id });
    const statuses = Object.fromEntries((await caller.keys.webhook({ id: key.id })).deliveries.map((d) => [d.id, d.status]));
    // The one being sent ends as its attempt does (a retry of it then finds no endpoint, and is skipped).
    expect(statuses).toEqual({ [waiting]: 'skipped', [sending]: 'pending' });
  });

  it('lists the latest deliveries and resends one: pending again now, same id, a fresh round of attempts', async () => {
    const { caller, slug } = await operatorWithPackage('hook');
    const key = await caller.keys.issue({ packageSlug: slug });
    await caller.keys.setWebhook({ id: key.id, url: 'https://hooks.example.com/wgs' });
    const id = `msg_${key.id.replace(/-/g, '')}`;
    await getPool().query(
      `INSERT INTO webhook_deliveries (id, api_key_id, job_id, event_type, status, attempts, last_status, last_error)
       VALUES ($1, $2, 'job_aaaaaaaaaaaaaaaaaaaaaaaa', 'job.failed', 'failed', 8, 500, 'HTTP 500')`,
      [id, key.id],
    );
    const [listed] = (await caller.keys.webhook({ id: key.id })).deliveries;
    expect(listed).toMatchObject({ id, event_type: 'job.failed', status: 'failed', attempts: 8, last_status: 500, next_attempt_at: null });

    await caller.keys.resendDelivery({ id: key.id, deliveryId: id });
    const [resent] = (await caller.keys.webhook({ id: key.id })).deliveries;
    expect(resent).toMatchObject({ id, status: 'pending', attempts: 0 });
    expect(resent!.next_attempt_at).not.toBeNull();

    const other = await caller.keys.issue({ packageSlug: slug });
    await expectTrpcError(caller.keys.resendDelivery({ id: other.id, deliveryId: id }), 'NOT_FOUND', 'not_found');

    // An endpoint that answered 410 Gone is disabled: a resend would go nowhere, and says so, the delivery untouched.
    await getPool().query('UPDATE api_keys SET webhook_disabled_at = now() WHERE id = $1', [key.id]);
    const refused = await expectTrpcError(caller.keys.resendDelivery({ id: key.id, deliveryId: id }), 'BAD_REQUEST', 'invalid_request');
    expect(refused.message).toMatch(/410 Gone and is disabled/);
    expect((await caller.keys.webhook({ id: key.id })).deliveries[0]).toMatchObject({ id, status: 'pending', attempts: 0 });
    await caller.keys.clearWebhook({ id: key.id });
    const none = await expectTrpcError(caller.keys.resendDelivery({ id: key.id, deliveryId: id }), 'BAD_REQUEST', 'invalid_request');
    expect(none.message).toMatch(/no webhook endpoint/);
  });
});
