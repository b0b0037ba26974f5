import { afterEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { crossSiteRefusal, isCrossSite } from '@/server/http/same-origin';
import { POST as trpcPost } from '@/app/api/trpc/[trpc]/route';

// Another site's POST to the dashboard (tRPC mutation, sign-in) is 403 before anything runs; the
// dashboard's own pages, and clients that are not browsers, go on. The built server's answers
// are read in tests/e2e/dashboard/doors.spec.ts.

const post = (headers: Record<string, string>, url = 'http://ops.example.com:3000/api/trpc/keys.revoke') =>
  new Request(url, { method: 'POST', headers: { host: new URL(url).host, 'content-type': 'application/json', ...headers }, body: '{}' });

afterEach(() => {
  delete process.env.TRUST_PROXY;
  resetConfigForTests();
});

describe('cross-site requests', () => {
  it("tells the dashboard's own origin from another site's", () => {
    expect(isCrossSite(post({ origin: 'http://ops.example.com:3000' }))).toBe(false);
    expect(isCrossSite(post({}))).toBe(false); // not a browser's request
    expect(isCrossSite(post({ 'sec-fetch-site': 'same-origin' }))).toBe(false);
    expect(isCrossSite(post({ origin: 'http://evil.example' }))).toBe(true);
    expect(isCrossSite(post({ origin: 'http://ops.example.com:3001' }))).toBe(true); // another port is another origin
    expect(isCrossSite(post({ origin: 'http://sub.ops.example.com:3000' }))).toBe(true);
    expect(isCrossSite(post({ origin: 'null' }))).toBe(true);
    expect(isCrossSite(post({ 'sec-fetch-site': 'cross-site' }))).toBe(true);
  });

  it("believes a proxy's X-Forwarded-Host only with TRUST_PROXY", () => {
    const behindProxy = post(
      { origin: 'https://ops.example.com', 'x-forwarded-host': 'ops.example.com', 'x-forwarded-proto': 'https' },
      'http://10.0.0.7:3000/api/trpc/x',
    );
    expect(isCrossSite(behindProxy)).toBe(true);
    process.env.TRUST_PROXY = 'true';
    resetConfigForTests();
    expect(isCrossSite(behindProxy)).toBe(false);
  });

  it('refuses only POSTs, with 403', async () => {
    expect(
      crossSiteRefusal(new Request('http://ops.example.com/api/trpc/keys.list', { headers: { origin: 'http://evil.example' } }), true),
    ).toBeNull();
    const refused = await trpcPost(post({ origin: 'http://evil.example' }));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { data: { code: 'FORBIDDEN', httpStatus: 403 } } });
  });
});
