import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerDns, restoreDns } from '../helpers/dns-answers';
import { resetConfigForTests } from '@/server/config';
import { postSigned } from '@/server/domain/webhooks/deliver-webhook';
import { webhookDoor } from '@/server/domain/webhooks/webhook-door';
import { describeConnectionFailure } from '@/server/providers/outbound/connection-failure';
import { RefusedDestinationError } from '@/server/providers/outbound/outbound-door';
import { allowProviderPrivateOrigin, providerDoor } from '@/server/providers/outbound/provider-door';

// Outbound by purpose: a provider's calls and the webhooks' deliveries go through doors of their
// own, each with its own allowance, so an origin an operator opened to a provider (a base_url on
// a private network) is never reached by a customer's webhook; and what a failed delivery
// records names the endpoint's host, never an address its name resolved to.

let server: Server;
let port: number;
const seen: string[] = [];
/** The addresses the stubbed DNS gives: a public-looking name that resolves into this network. */
const answers: Record<string, string> = {};

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  answerDns(answers);
});
afterAll(() => {
  restoreDns();
  server.close();
});
afterEach(() => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  resetConfigForTests();
  allowProviderPrivateOrigin('provider:purpose', null);
});

const get = (door: typeof providerDoor, origin: string, path: string) =>
  door.request({ origin, path, method: 'GET' }).then(async (response) => {
    await response.body.text();
    return response.statusCode;
  });

describe("a webhook never rides a provider's private origin", () => {
  it('the providers door reaches the origin a base_url opened; the webhooks door refuses it, by address and by name', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    resetConfigForTests();
    answers['llm.example.com'] = '127.0.0.1';
    for (const origin of [`http://127.0.0.1:${port}`, `http://llm.example.com:${port}`]) {
      allowProviderPrivateOrigin('provider:purpose', origin);
      seen.length = 0;
      // The provider's call first: its kept-alive connection is the providers door's alone.
      expect(await get(providerDoor, origin, '/v1/models')).toBe(200);
      await expect(get(webhookDoor, origin, '/hook')).rejects.toBeInstanceOf(RefusedDestinationError);
      const attempt = await postSigned(`${origin}/hook`, {}, '{}', 2_000);
      expect(attempt.status).toBeUndefined();
      expect(attempt.error).toBe(`refused: ${new URL(origin).hostname} is a private or reserved address`);
      expect(seen).toEqual(['GET /v1/models']);
    }
  });

  it("the webhooks' own allowance (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true) lets a delivery reach a private address, a provider's or not", async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    resetConfigForTests();
    seen.length = 0;
    expect(await postSigned(`http://127.0.0.1:${port}/hook`, {}, '{}', 2_000)).toEqual({ status: 200 });
    expect(seen).toEqual(['POST /hook']);
    // ... and a provider's call does not ride the webhooks' allowance either (an origin the
    // providers door holds no connection to from the test before).
    answers['fresh.example.com'] = '127.0.0.1';
    await expect(get(providerDoor, `http://fresh.example.com:${port}`, '/v1/models')).rejects.toBeInstanceOf(RefusedDestinationError);
    expect(seen).toEqual(['POST /hook']);
  });
});

describe('what a failed delivery records', () => {
  it('names the host, never the address its name resolved to: refused, metadata, refused connection', async () => {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'false';
    resetConfigForTests();
    answers['inside.example.com'] = '10.20.30.40';
    answers['meta.example.com'] = '169.254.169.254';
    const inside = await postSigned('https://inside.example.com/hook', {}, '{}', 2_000);
    expect(inside.error).toBe('refused: inside.example.com is a private or reserved address');
    const meta = await postSigned('https://meta.example.com/hook', {}, '{}', 2_000);
    expect(meta.error).toBe(
      'refused: meta.example.com is a private or reserved address that is never reached (link-local or cloud metadata)',
    );

    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    resetConfigForTests();
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    answers['down.example.com'] = '127.0.0.1';
    const down = await postSigned(`http://down.example.com:${closed}/hook`, {}, '{}', 2_000);
    expect(down.error).toBe(`could not deliver to down.example.com:${closed}: the connection was refused (ECONNREFUSED)`);
    for (const error of [inside.error, meta.error, down.error]) expect(error).not.toMatch(/10\.20\.30\.40|169\.254|127\.0\.0\.1/);
  });

  it('reads the code, never the text, of any other failure', () => {
    const withAddress = (code: string) => Object.assign(new Error(`connect ${code} 10.9.8.7:443`), { code });
    expect(describeConnectionFailure(new TypeError('fetch failed', { cause: withAddress('ECONNRESET') }), 'h.example.com')).toBe(
      'could not deliver to h.example.com: the connection was reset (ECONNRESET)',
    );
    expect(describeConnectionFailure(withAddress('ERR_TLS_CERT_ALTNAME_INVALID'), 'h.example.com')).toBe(
      'could not deliver to h.example.com: its TLS certificate was not accepted (ERR_TLS_CERT_ALTNAME_INVALID)',
    );
    expect(describeConnectionFailure(withAddress('ESOMETHINGNEW'), 'h.example.com')).toBe(
      'could not deliver to h.example.com: the request failed (ESOMETHINGNEW)',
    );
    expect(describeConnectionFailure(new Error('connect to 10.9.8.7 failed'), 'h.example.com')).toBe('could not deliver to h.example.com');
  });
});
