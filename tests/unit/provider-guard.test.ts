import dns from 'node:dns';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { CONFIG_VARIABLES, isServiceVariable } from '@/server/config/service-variables';
import { apiKeyEnvProblem, providerEntryIssues } from '@/server/domain/providers/provider-guard';
import { PROVIDER_TYPE_INFO, PROVIDER_TYPES } from '@/server/contract/provider-types';
import { providerFetch } from '@/server/providers/ai-sdk/provider-fetch';
import { cappedFetch, mediaFetch, RefusedDestinationError } from '@/server/providers/capped-fetch';
import { isMetadataHost, metadataHostOf } from '@/server/providers/metadata-hosts';
import { allowProviderPrivateOrigin } from '@/server/providers/outbound/provider-door';

// Provider settings cannot be turned against the service: no service variable as a key, no
// metadata address as a server, no key sent where the operator did not point it.

describe('api_key_env', () => {
  it('refuses every variable of the configuration schema and the credentials the service reads', () => {
    expect(CONFIG_VARIABLES).toContain('DATABASE_URL');
    for (const name of CONFIG_VARIABLES) expect(isServiceVariable(name), name).toBe(true);
    for (const name of ['DATABASE_URL', 'REDIS_URL', 'SIGNING_SECRET', 'NEXTAUTH_SECRET', 'GITHUB_SECRET', 'GOOGLE_CLIENT_SECRET']) {
      expect(isServiceVariable(name), name).toBe(true);
    }
    for (const name of ['AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'BLOB_READ_WRITE_TOKEN', 'PGPASSWORD', 'ANY_WEBHOOK_SECRET']) {
      expect(isServiceVariable(name), name).toBe(true);
    }
  });

  it('accepts the provider key variables the docs name', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'GOOGLE_GENERATIVE_AI_API_KEY',
      'AWS_BEARER_TOKEN_BEDROCK',
      'REPLICATE_API_TOKEN',
      'AI_GATEWAY_API_KEY',
    ]) {
      expect(isServiceVariable(name), name).toBe(false);
    }
  });

  it('refuses every variable the server code reads, through the configuration or the environment (no list that drifts)', () => {
    const read = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (entry === 'generated') continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) {
          // process.env in server/config, the configuration (getConfig().X, config.X), and environmentVariable('X').
          const text = readFileSync(path, 'utf8');
          const reads = /(?:process\.env|getConfig\(\)|\bconfig)\.([A-Z][A-Z0-9_]*)|environmentVariable\('([A-Z][A-Z0-9_]*)'\)/g;
          for (const match of text.matchAll(reads)) read.add((match[1] ?? match[2])!);
        }
      }
    };
    walk(join(process.cwd(), 'server'));
    expect(read.size).toBeGreaterThan(5);
    for (const name of read) expect(isServiceVariable(name), name).toBe(true);
  });

  it("is an allowlist: each type's own variable, a name ending in _API_KEY, WGS_PROVIDER_KEY_*, and what PROVIDER_KEY_ENV_ALLOWED lists", () => {
    expect(PROVIDER_TYPES).toHaveLength(17);
    const own = PROVIDER_TYPES.map((type) => PROVIDER_TYPE_INFO[type].keyEnv).filter((name): name is string => name !== null);
    expect(own).toHaveLength(16); // openai-compatible speaks to any server: it has no variable of its own
    for (const type of PROVIDER_TYPES) {
      const mine = PROVIDER_TYPE_INFO[type].keyEnv;
      if (mine) expect(apiKeyEnvProblem(type, mine, []), `${type} ${mine}`).toBeUndefined();
      for (const other of own.filter((name) => name !== mine)) expect(apiKeyEnvProblem(type, other, []), `${type} ${other}`).toBeDefined();
      expect(apiKeyEnvProblem(type, 'WGS_PROVIDER_KEY_MAIN', [])).toBeUndefined();
      expect(apiKeyEnvProblem(type, 'WGS_PROVIDER_KEY_', [])).toBeDefined();
      expect(apiKeyEnvProblem(type, 'MAIN_API_KEY', [])).toBeUndefined(); // CONTRACT.md §7's example
      for (const refused of ['GITHUB_TOKEN', 'API_KEY', '_API_KEY', 'MAIN_API_KEYS', 'MAIN_API_KEY_FILE']) {
        expect(apiKeyEnvProblem(type, refused, []), refused).toMatch(/is not a provider key variable/);
      }
      expect(apiKeyEnvProblem(type, 'MINIO_ROOT_PASSWORD', [])).toMatch(/^MINIO_ROOT_PASSWORD is not a provider key variable/);
      expect(apiKeyEnvProblem(type, 'MINIO_ROOT_PASSWORD', ['MINIO_ROOT_PASSWORD'])).toBeUndefined();
    }
    // A service variable stays refused even when the owner lists it.
    for (const name of [...CONFIG_VARIABLES, 'WGS_DATA_DIR', 'AWS_SECRET_ACCESS_KEY']) {
      expect(apiKeyEnvProblem('openai', name, [name]), name).toMatch(/a variable the service itself reads/);
    }
    expect(CONFIG_VARIABLES.filter((name) => name.startsWith('WGS_PROVIDER_KEY_'))).toEqual([]);
  });

  it('is one issue naming the field, and one for each unsafe field of an entry', () => {
    expect(providerEntryIssues({ type: 'openai', api_key_env: 'DATABASE_URL' }, 'providers.main')).toEqual([
      {
        path: 'providers.main.api_key_env',
        code: 'service_variable',
        message: expect.stringMatching(/^providers\.main\.api_key_env: DATABASE_URL is a variable the service itself reads/),
      },
    ]);
    const both = providerEntryIssues({ type: 'openai', api_key_env: 'HOME', base_url: 'http://169.254.169.254/' }, 'providers.odd');
    expect(both.map((issue) => issue.path)).toEqual(['providers.odd.api_key_env', 'providers.odd.base_url']);
  });
});

describe('metadata addresses', () => {
  it.each([
    'http://169.254.169.254/',
    'http://169.254.10.1:8080/v1',
    'http://2852039166/',
    'http://[fd00:ec2::254]/',
    'http://[fd00:ec2:0:0:0:0:0:254]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fe80::1]/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA.google.internal./',
    'http://100.100.100.200/',
    'http://[64:ff9b::a9fe:a9fe]/', // NAT64 of 169.254.169.254
    'http://[64:ff9b::169.254.170.2]/', // NAT64 of ECS task metadata
    'http://[fd00:ec2::23]/', // EKS Pod Identity
    'http://[::ffff:a9fe:a9fe]:8080/',
  ])('%s is refused as base_url and by the fetch', async (url) => {
    expect(metadataHostOf(url)).toBeDefined();
    expect(providerEntryIssues({ type: 'openai', base_url: url }, '')[0]?.path).toBe('base_url');
    await expect(cappedFetch(url, { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(mediaFetch(1000)(url)).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  it.each(['127.0.0.1', 'api.openai.com', '10.0.0.1', '[::1]', '169.255.0.1', '[fd00:ec3::254]', '[64:ff9b::808:808]'])(
    '%s is not a metadata host',
    (host) => {
      expect(isMetadataHost(host)).toBe(false);
    },
  );
});

// Two servers on 127.0.0.1 are two origins (the port is part of the origin).
interface Recorder {
  server: Server;
  origin: string;
  seen: { method: string; path: string; headers: IncomingHttpHeaders }[];
}

function startRecorder(answer: (path: string, response: import('node:http').ServerResponse) => void): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      seen.push({ method: request.method!, path: request.url!, headers: request.headers });
      answer(request.url!, response);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, seen, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })),
  );
}

let api: Recorder;
let other: Recorder;
beforeAll(async () => {
  other = await startRecorder((_path, response) => {
    // No connection kept for later: each test judges its own (permission is judged per connection).
    response.writeHead(200, { 'content-type': 'application/octet-stream', connection: 'close' });
    response.end('media-bytes');
  });
  api = await startRecorder((path, response) => {
    if (path === '/away') response.writeHead(307, { location: `${other.origin}/stolen` });
    else if (path === '/near') response.writeHead(307, { location: '/landed' });
    else if (path === '/metadata') response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
    else if (path === '/media-moved') response.writeHead(302, { location: `${other.origin}/cdn/file.mp4` });
    else response.writeHead(200, { 'content-type': 'application/json' });
    response.end(path === '/landed' ? '{"landed":true}' : '{}');
  });
  // The operator named the API's server (a base_url on 127.0.0.1); `other` is nobody's.
  allowProviderPrivateOrigin('provider:guard-test', api.origin);
});
afterAll(() => {
  api.server.close();
  other.server.close();
});

const AUTH = { authorization: 'Bearer sk-guard-test-secret', 'content-type': 'application/json' };

describe('redirects and credentials', () => {
  it('an API call is not redirected to another origin: refused, the other origin never called', async () => {
    other.seen.length = 0;
    await expect(cappedFetch(`${api.origin}/away`, { method: 'POST', headers: AUTH, body: '{}' })).rejects.toBeInstanceOf(
      RefusedDestinationError,
    );
    expect(other.seen).toHaveLength(0);
  });

  it('an API call follows a redirect on its own origin', async () => {
    const response = await cappedFetch(`${api.origin}/near`, { method: 'POST', headers: AUTH, body: '{}' });
    expect(await response.json()).toEqual({ landed: true });
  });

  it('a redirect to a metadata address is refused, for calls and downloads alike', async () => {
    await expect(cappedFetch(`${api.origin}/metadata`, { headers: AUTH })).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(mediaFetch(2000)(`${api.origin}/metadata`)).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  it('a media URL is fetched without the provider credentials; a redirect to a private address nobody named is not followed', async () => {
    other.seen.length = 0;
    await expect(mediaFetch(2000)(`${api.origin}/media-moved`, { headers: AUTH } as RequestInit)).rejects.toThrow(
      /refused: 127\.0\.0\.1 is a private or reserved address/,
    );
    expect(other.seen).toHaveLength(0);
    expect(api.seen.at(-1)!.headers.authorization).toBeUndefined();
  });

  it('a media URL may be redirected to its CDN, which gets no credentials either', async () => {
    allowProviderPrivateOrigin('provider:cdn', other.origin); // stands for a public CDN
    try {
      other.seen.length = 0;
      const response = await mediaFetch(2000)(`${api.origin}/media-moved`, { headers: AUTH } as RequestInit);
      expect(await response.text()).toBe('media-bytes');
      expect(other.seen).toHaveLength(1);
      expect(other.seen[0]!.headers.authorization).toBeUndefined();
    } finally {
      allowProviderPrivateOrigin('provider:cdn', null);
    }
  });

  it("the SDK's fetch sends the key to the API origin, but not with a GET of another origin the answer names", async () => {
    allowProviderPrivateOrigin('provider:cdn', other.origin); // stands for a public file host
    onTestFinished(() => allowProviderPrivateOrigin('provider:cdn', null));
    const fetch = providerFetch({ timeoutMs: 2000, apiKey: 'sk-guard-test-secret' });
    api.seen.length = 0;
    other.seen.length = 0;
    await fetch(`${api.origin}/v1/generate`, { method: 'POST', headers: AUTH, body: '{}' });
    await fetch(`${api.origin}/v1/status`, { method: 'GET', headers: AUTH });
    await fetch(`${other.origin}/files/out.png`, { method: 'GET', headers: { ...AUTH, 'x-key-copy': 'sk-guard-test-secret' } });
    expect(api.seen.map((call) => call.headers.authorization)).toEqual(['Bearer sk-guard-test-secret', 'Bearer sk-guard-test-secret']);
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    expect(other.seen[0]!.headers['x-key-copy']).toBeUndefined();
  });
});

// The address a connection reaches is judged where it is made: a name that resolves once to an
// allowed address and then to the metadata service (DNS rebinding) gains nothing from the switch.
describe('the outbound door judges the address it connects to', () => {
  const answers: Record<string, { address: string; family: number }[][]> = {};
  afterEach(() => {
    vi.restoreAllMocks();
    syncBuiltinESMExports();
  });

  /** A resolver for *.test names whose answers change from one lookup to the next (the last repeats). */
  function rebindingResolver() {
    const real = dns.lookup;
    const asked: string[] = [];
    vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, options: unknown, callback: unknown) => {
      const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
      const queue = answers[hostname];
      if (!queue) return (real as (...args: unknown[]) => void)(hostname, options, callback);
      asked.push(hostname);
      const answer = queue.length > 1 ? queue.shift()! : queue[0]!;
      if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all) return done(null, answer);
      done(null, answer[0]!.address, answer[0]!.family);
    }) as never);
    syncBuiltinESMExports(); // code that imported { lookup } sees it too
    return asked;
  }

  it('a rebinding name: the first connection reaches the address the check saw, the next one (now 169.254.169.254) is refused', async () => {
    const port = new URL(api.origin).port;
    answers['rebind.test'] = [[{ address: '127.0.0.1', family: 4 }], [{ address: '169.254.169.254', family: 4 }]];
    allowProviderPrivateOrigin('provider:rebind', `http://rebind.test:${port}`);
    const asked = rebindingResolver();
    api.seen.length = 0;
    // A GET (a provider's poll, a download): one lookup, made by the connection itself.
    const first = await cappedFetch(`http://rebind.test:${port}/status`, { headers: { connection: 'close' } }, 2000);
    expect(first.status).toBe(200);
    await first.text();
    expect(api.seen).toHaveLength(1);
    expect(asked).toEqual(['rebind.test']);
    await expect(cappedFetch(`http://rebind.test:${port}/status`, { headers: { connection: 'close' } }, 2000)).rejects.toThrow(
      /^refused: rebind\.test is a private or reserved address that is never reached \(link-local or cloud metadata\)$/,
    );
    await expect(mediaFetch(2000)(`http://rebind.test:${port}/file.png`)).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(cappedFetch(`http://rebind.test:${port}/v1/x`, { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(
      RefusedDestinationError,
    );
    expect(api.seen).toHaveLength(1);
  });

  it.each([
    ['NAT64 of 169.254.169.254', '64:ff9b::a9fe:a9fe', 6],
    ['EKS Pod Identity', 'fd00:ec2::23', 6],
    ['AWS metadata over IPv6', 'fd00:ec2::254', 6],
    ['link-local', 'fe80::1', 6],
    ['ECS task metadata', '169.254.170.2', 4],
    ['GCP metadata over IPv6', 'fd20:ce::254', 6],
    ['Oracle Cloud metadata over IPv6', 'fd00:c1::a9fe:a9fe', 6],
    ['Alibaba Cloud metadata', '100.100.100.200', 4],
    ['Azure WireServer', '168.63.129.16', 4],
    ['Alibaba Cloud metadata, IPv4-mapped', '::ffff:100.100.100.200', 6],
  ])('a name resolving to %s (%s) is never connected to, even at an origin allowed private networks', async (_what, address, family) => {
    answers['meta.test'] = [[{ address, family }]];
    allowProviderPrivateOrigin('provider:meta', 'http://meta.test');
    rebindingResolver();
    await expect(cappedFetch('http://meta.test/v1/x', { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(cappedFetch('http://meta.test/v1/x', {}, 1000)).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(mediaFetch(1000)('http://meta.test/file.mp4')).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  it('a name with one refused answer among allowed ones is refused whole', async () => {
    answers['mixed.test'] = [
      [
        { address: '127.0.0.1', family: 4 },
        { address: '169.254.169.254', family: 4 },
      ],
    ];
    allowProviderPrivateOrigin('provider:mixed', `http://mixed.test:${new URL(api.origin).port}`);
    rebindingResolver();
    await expect(cappedFetch(`http://mixed.test:${new URL(api.origin).port}/x`, {}, 1000)).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  it("a private address is reached only at an origin allowed it: a provider's media link to another port of 127.0.0.1 is refused", async () => {
    await expect(mediaFetch(1000)(`${other.origin}/cdn/file.mp4`)).rejects.toThrow(
      /^refused: 127\.0\.0\.1 is a private or reserved address$/,
    );
    await expect(cappedFetch(`${other.origin}/v1/x`, { method: 'POST', body: '{}' })).rejects.toThrow(
      /^refused: 127\.0\.0\.1 is a private or reserved address$/,
    );
    expect(other.seen.filter((call) => call.path.startsWith('/cdn') || call.path === '/v1/x')).toHaveLength(0);
  });
});
