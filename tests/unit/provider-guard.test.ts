import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '@/server/config';
import { isServiceVariable, providerEntryIssue } from '@/server/domain/providers/provider-guard';
import { providerFetch } from '@/server/providers/ai-sdk/provider-fetch';
import { cappedFetch, mediaFetch, RefusedDestinationError } from '@/server/providers/capped-fetch';
import { isMetadataHost, metadataHostOf } from '@/server/providers/metadata-hosts';

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

  it('is one issue naming the field', () => {
    expect(providerEntryIssue({ api_key_env: 'DATABASE_URL' }, 'providers.main')).toEqual({
      path: 'providers.main.api_key_env',
      code: 'service_variable',
      message: expect.stringMatching(/^providers\.main\.api_key_env: DATABASE_URL is a variable the service itself reads/),
    });
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
  ])('%s is refused as base_url and by the fetch', async (url) => {
    expect(metadataHostOf(url)).toBeDefined();
    expect(providerEntryIssue({ base_url: url }, '')?.path).toBe('base_url');
    await expect(cappedFetch(url, { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(RefusedDestinationError);
    await expect(mediaFetch(1000)(url)).rejects.toBeInstanceOf(RefusedDestinationError);
  });

  it.each(['127.0.0.1', 'api.openai.com', '10.0.0.1', '[::1]', '169.255.0.1', '[fd00:ec2::253]'])('%s is not a metadata host', (host) => {
    expect(isMetadataHost(host)).toBe(false);
  });
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
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
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

  it('a media URL is fetched without the provider credentials, and may be redirected to its CDN', async () => {
    other.seen.length = 0;
    const response = await mediaFetch(2000)(`${api.origin}/media-moved`, { headers: AUTH } as RequestInit);
    expect(await response.text()).toBe('media-bytes');
    expect(other.seen).toHaveLength(1);
    expect(other.seen[0]!.headers.authorization).toBeUndefined();
    expect(api.seen.at(-1)!.headers.authorization).toBeUndefined();
  });

  it("the SDK's fetch sends the key to the API origin, but not with a GET of another origin the answer names", async () => {
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
