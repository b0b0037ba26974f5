import { randomUUID } from 'node:crypto';
import { NextRequest } from 'next/server';
import { getTRPCErrorShape } from '@trpc/server';
import { portalRouter } from '@/server/trpc/portal/portal-router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as signInPost } from '@/app/api/portal/session/route';
import { POST as portalTrpcPost } from '@/app/api/portal/trpc/[trpc]/route';
import { getConfig, resetConfigForTests } from '@/server/config';
import { disconnectDb, getPrisma } from '@/server/db/client';
import { hashKeySecret } from '@/server/domain/keys/key-secret';
import { setBuyerEmail } from '@/server/domain/portal/owner-email';
import { codeIn, type SmtpInbox } from '../../helpers/smtp-inbox';
import { expectTrpcError, operatorCaller } from '../trpc/helpers';
import { keyOnFreshPackage, portalSignIn, rotateWithCode, turnMailOff, turnMailOn } from './portal-helpers';

// A leaked key cannot take the account: rotation and webhook changes wait for the one-time code
// e-mailed to the key's buyer (a real SMTP server on 127.0.0.1), who is told of every change;
// without e-mail the portal offers neither and says whom to ask; it can be switched off.

let inbox: SmtpInbox;
beforeAll(async () => {
  inbox = await turnMailOn();
  process.env.SUPPORT_CONTACT = 'support@seller.example';
  resetConfigForTests();
});
afterAll(async () => {
  delete process.env.SUPPORT_CONTACT;
  await turnMailOff(inbox);
  await disconnectDb();
});

describe('the code e-mailed to the buyer', () => {
  it('is needed, works once, in the session that asked, and the buyer is told of the change', async () => {
    const key = await keyOnFreshPackage('confirm');
    const { caller } = await portalSignIn(key.secret);
    const thief = await portalSignIn(key.secret);
    expect((await caller.overview()).owner).toMatchObject({
      can_change: true,
      status: 'active',
      email: expect.stringMatching(/^o•••@example\.com$/),
    });
    expect(await caller.requestChange({ action: 'rotate_key' })).toMatchObject({ sent_to: expect.stringContaining('•••@example.com') });
    const mail = await inbox.waitForMail(key.email);
    expect(mail.subject).toBe(`Your confirmation code: ${codeIn(mail)}`);
    expect(mail.text).toContain("replace your API key's secret");
    expect(mail.text).toContain('support@seller.example');
    // Another session of the same key (a leaked key's) cannot use it.
    await expectTrpcError(thief.caller.confirmChange({ code: codeIn(mail) }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    const rotated = await caller.confirmChange({ code: codeIn(mail).toLowerCase().replace('-', ' ') });
    expect(rotated).toMatchObject({ action: 'rotate_key', secret: expect.stringMatching(/^wgs_live_/) });
    const notice = await inbox.waitForMail(key.email, 2);
    expect(notice.subject).toMatch(/^Your API key wgs_live_.{4}… was changed$/);
    expect(notice.text).toContain("Your API key's secret was replaced");
    expect(notice.text).not.toContain(rotated.action === 'rotate_key' ? rotated.secret : '-');
  });

  it('refuses wrong codes, at most five tries, and an expired one', async () => {
    const key = await keyOnFreshPackage('confirm');
    const { caller } = await portalSignIn(key.secret);
    await caller.requestChange({ action: 'set_webhook', url: 'https://hooks.example.com/wgs' });
    const code = codeIn(await inbox.waitForMail(key.email));
    for (let i = 0; i < 5; i++) await expectTrpcError(caller.confirmChange({ code: 'AAAA-AAAA' }), 'UNPROCESSABLE_CONTENT');
    await expectTrpcError(caller.confirmChange({ code }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).webhookUrl).toBeNull();

    await caller.requestChange({ action: 'rotate_key' });
    const second = codeIn(await inbox.waitForMail(key.email, 2));
    await getPrisma().portalConfirmation.updateMany({
      where: { apiKeyId: key.id, usedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expectTrpcError(caller.confirmChange({ code: second }), 'UNPROCESSABLE_CONTENT', 'validation_error');
    expect((await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).hash).toBe(hashKeySecret(key.secret));
    // Only the codes' hashes were ever stored.
    const rows = await getPrisma().portalConfirmation.findMany({ where: { apiKeyId: key.id } });
    expect(JSON.stringify(rows)).not.toContain(second);
  });

  it('a mail server that refuses the code changes nothing and keeps nothing waiting', async () => {
    const key = await keyOnFreshPackage('confirm');
    const { caller } = await portalSignIn(key.secret);
    inbox.refuseAll(true);
    try {
      await expectTrpcError(caller.requestChange({ action: 'rotate_key' }), 'SERVICE_UNAVAILABLE', 'provider_unavailable');
    } finally {
      inbox.refuseAll(false);
    }
    expect(await getPrisma().portalConfirmation.count({ where: { apiKeyId: key.id } })).toBe(0);
  });

  it('a code that cannot be sent leaves the one sent before it waiting, and says why (not that the database is away)', async () => {
    const key = await keyOnFreshPackage('confirm');
    const { caller } = await portalSignIn(key.secret);
    const before = inbox.mailTo(key.email).length;
    await caller.requestChange({ action: 'rotate_key' });
    const code = codeIn(await inbox.waitForMail(key.email, before + 1));
    inbox.refuseAll(true);
    try {
      const error = await expectTrpcError(caller.requestChange({ action: 'rotate_key' }), 'SERVICE_UNAVAILABLE', 'provider_unavailable');
      // What the portal's HTTP answer says: its error shape.
      const shape = getTRPCErrorShape({
        config: portalRouter._def._config,
        error,
        type: 'mutation',
        path: 'requestChange',
        input: undefined,
        ctx: undefined,
      });
      expect(shape.message).toContain('The confirmation e-mail could not be sent');
    } finally {
      inbox.refuseAll(false);
    }
    expect(await caller.confirmChange({ code })).toMatchObject({ action: 'rotate_key' });
  });
});

describe('without e-mail, the portal changes nothing and says whom to ask', () => {
  it('a key with no buyer e-mail: usage and receipts, no rotation or webhook change', async () => {
    const key = await keyOnFreshPackage('no-mail', 100, null);
    const { caller } = await portalSignIn(key.secret);
    expect((await caller.overview()).owner).toEqual({
      status: 'active',
      suspended_at: null,
      email: null,
      can_change: false,
      contact: 'support@seller.example',
    });
    const refused = await expectTrpcError(caller.requestChange({ action: 'rotate_key' }), 'FORBIDDEN', 'forbidden');
    expect(refused.message).toContain('support@seller.example');
    expect(refused.message).toContain('this key has none here');
    await expectTrpcError(caller.requestChange({ action: 'set_webhook', url: 'https://hooks.example.com/x' }), 'FORBIDDEN');
  });

  it('no SMTP settings: the same, whatever the key has', async () => {
    const key = await keyOnFreshPackage('no-smtp');
    const { caller } = await portalSignIn(key.secret);
    delete process.env.SMTP_URL;
    resetConfigForTests();
    try {
      expect((await caller.overview()).owner).toMatchObject({ can_change: false, email: expect.stringContaining('•••') });
      const refused = await expectTrpcError(caller.requestChange({ action: 'rotate_key' }), 'FORBIDDEN', 'forbidden');
      expect(refused.message).toContain('this service cannot send e-mail'); // not that the key has no e-mail: it has one
    } finally {
      process.env.SMTP_URL = inbox.url;
      resetConfigForTests();
    }
  });
});

describe("the buyer's e-mail set by the operator", () => {
  it('is audited, and the old and the new address are told', async () => {
    const key = await keyOnFreshPackage('owner');
    const { caller } = await operatorCaller('owner');
    await expectTrpcError(caller.sales.setBuyerEmail({ id: key.id, email: 'not an address' }), 'UNPROCESSABLE_CONTENT');
    const next = `new-${randomUUID().slice(0, 8)}@example.com`;
    expect(await caller.sales.setBuyerEmail({ id: key.id, email: next })).toEqual({ id: key.id, buyer_email: next });
    expect((await inbox.waitForMail(key.email)).text).toContain(`is now ${next}`);
    expect((await inbox.waitForMail(next)).text).toContain('This address now confirms changes');
    expect(await caller.sales.keyOwner({ id: key.id })).toMatchObject({ buyer_email: next, mail_on: true, suspended: false });
    // An id that names no key: 404 not_found, as every procedure taking a key id answers (it was a 500).
    await expectTrpcError(caller.sales.keyOwner({ id: randomUUID() }), 'NOT_FOUND', 'not_found');
    const audit = await getPrisma().auditLog.findFirstOrThrow({ where: { action: 'key.email', targetId: key.id } });
    expect(audit).toMatchObject({ before: { buyer_email: key.email }, after: { buyer_email: next } });
    // The portal's codes now go to the new address.
    const { caller: portal } = await portalSignIn(key.secret);
    await rotateWithCode(portal, inbox, next);
    // A key sold while the label named its buyer: clearing the e-mail takes it out of the label too.
    await getPrisma().apiKey.update({ where: { id: key.id }, data: { label: `Bought by ${next}` } });
    await setBuyerEmail(getPrisma(), { type: 'cli', label: 'cli' }, key.id, null);
    expect(await getPrisma().apiKey.findUniqueOrThrow({ where: { id: key.id } })).toMatchObject({
      buyerEmail: null,
      label: 'Bought through Stripe Checkout',
    });
  });
});

describe('a suspended key in the portal', () => {
  it('signs in to see why, and changes or buys nothing', async () => {
    const key = await keyOnFreshPackage('suspended');
    await getPrisma().apiKey.update({ where: { id: key.id }, data: { status: 'suspended', suspendedAt: new Date() } });
    const { caller } = await portalSignIn(key.secret);
    expect((await caller.overview()).owner).toMatchObject({ status: 'suspended', can_change: false });
    await expectTrpcError(caller.requestChange({ action: 'rotate_key' }), 'FORBIDDEN', 'forbidden');
    await expectTrpcError(caller.buyTopUp({ units: 1000 }), 'FORBIDDEN', 'forbidden');
    expect(await caller.sales()).toMatchObject({ canTopUp: false });
  });
});

describe("what the portal lists of a key's jobs and uploads", () => {
  it('never an id /v1 cannot list, nor a file name', async () => {
    const key = await keyOnFreshPackage('listing');
    const jobId = `job_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const uploadId = `upl_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    await getPrisma().job.create({
      data: {
        id: jobId,
        apiKeyId: key.id,
        operation: 'video.generate',
        status: 'succeeded',
        input: {},
        engine: 'local',
        units: 3,
        requestId: randomUUID(),
      },
    });
    await getPrisma().upload.create({
      data: {
        id: uploadId,
        apiKeyId: key.id,
        purpose: 'image_input',
        filename: 'secret-plans.png',
        mimeType: 'image/png',
        sizeBytes: 10,
        sha256: '0'.repeat(64),
        status: 'verified',
        storageKey: `uploads/${uploadId}`,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    const { caller } = await portalSignIn(key.secret);
    const overview = await caller.overview();
    expect(overview.jobs).toEqual([
      expect.objectContaining({ operation: 'video.generate', status: 'succeeded', units: 3, charged_units: 3 }),
    ]);
    // A verified upload is usable until retention deletes it, not until its completion deadline (retention review).
    const created = (await getPrisma().upload.findUniqueOrThrow({ where: { id: uploadId } })).createdAt;
    const kept = new Date(created.getTime() + getConfig().UPLOAD_RETENTION_HOURS * 3_600_000).toISOString();
    expect(overview.uploads).toEqual([
      expect.objectContaining({ purpose: 'image_input', status: 'verified', size_bytes: 10, usable_until: kept }),
    ]);
    const shown = JSON.stringify({ jobs: overview.jobs, uploads: overview.uploads });
    for (const hidden of [jobId, uploadId, 'secret-plans.png', '"id"']) expect(shown).not.toContain(hidden);
    // Once retention deleted its bytes, it says so (it was listed as verified).
    await getPrisma().upload.update({ where: { id: uploadId }, data: { deletedAt: new Date() } });
    expect((await caller.overview()).uploads).toEqual([expect.objectContaining({ status: 'deleted', usable_until: null })]);
    // One never verified kept no bytes to delete: it stays what it was (review: "deleted" too).
    await getPrisma().upload.update({ where: { id: uploadId }, data: { status: 'expired' } });
    expect((await caller.overview()).uploads).toEqual([expect.objectContaining({ status: 'expired', usable_until: null })]);
  });
});

describe('PORTAL_ENABLED=false', () => {
  it('answers 404 on its endpoints', async () => {
    process.env.PORTAL_ENABLED = 'false';
    resetConfigForTests();
    try {
      const signIn = await signInPost(
        new NextRequest('http://portal.example.com/api/portal/session', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ secret: 'wgs_live_x' }),
        }),
      );
      expect(signIn.status).toBe(404);
      const trpc = await portalTrpcPost(new Request('http://portal.example.com/api/portal/trpc/overview', { method: 'POST', body: '{}' }));
      expect(trpc.status).toBe(404);
    } finally {
      delete process.env.PORTAL_ENABLED;
      resetConfigForTests();
    }
  });
});
