import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { issueKey } from '@/server/domain/keys/issue-key';
import { applyPackages, parsePackagesFile } from '@/server/domain/packages/apply-packages';
import { serviceApp } from '@/server/surfaces/service-app';

// Helpers for integration tests that call the API in-process: the service's app (server/surfaces),
// which npm start's server and Next's route files hand their requests to.

export const BASE = 'http://127.0.0.1:3999';

/**
 * The service's app, as npm start's server serves it a request from a connection whose peer is
 * `peerAddress`; without one, as Next serves it with no server of ours in front (no known client).
 */
export function api(request: Request, peerAddress?: string): Promise<Response> {
  const url = new URL(request.url);
  const connection = peerAddress === undefined ? undefined : { peerAddress, target: `${url.pathname}${url.search}` };
  return Promise.resolve(serviceApp.fetch(request, { connection }));
}

/** `api`, or a route file's handler (called as Next calls it). */
type Handler = (request: Request) => Promise<Response>;

export interface CallOptions {
  key?: string | null;
  idempotencyKey?: string | null;
  contentType?: string | null;
  headers?: Record<string, string>;
  /** The connection's peer address (the client's, without a proxy in front). */
  from?: string;
  method?: string;
  rawBody?: BodyInit;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export const newIdempotencyKey = () => `test-${randomBytes(9).toString('base64url')}`;

export async function call(handler: Handler, path: string, body?: unknown, options: CallOptions = {}): Promise<CallResult> {
  const headers = new Headers(options.headers);
  if (options.key !== null && options.key !== undefined) headers.set('Authorization', `Bearer ${options.key}`);
  const method = options.method ?? (body === undefined && options.rawBody === undefined ? 'GET' : 'POST');
  if (method === 'POST') {
    if (options.contentType !== null) headers.set('Content-Type', options.contentType ?? 'application/json');
    if (options.idempotencyKey !== null) headers.set('Idempotency-Key', options.idempotencyKey ?? newIdempotencyKey());
  }
  const request = new Request(`${BASE}${path}`, {
    method,
    headers,
    body: options.rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
    // @ts-expect-error Node's fetch needs duplex for stream bodies
    duplex: 'half',
  });
  const response = options.from === undefined ? await handler(request) : await api(request, options.from);
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export interface TestKey {
  key: string;
  id: string;
  slug: string;
}

/** A fresh package (unique slug) and a key for it. `operations` defaults to local text and code. */
export async function createTestKey(
  options: {
    quota?: number;
    rpm?: number;
    concurrency?: number;
    maxUploadBytes?: number;
    maxStoredBytes?: number;
    operations?: Record<string, unknown>;
    providers?: Record<string, unknown>;
    unitPrice?: number;
    maxProviderCostPerDay?: number;
    /** The package's settings of the OpenAI-compatible surface. */
    openaiCompatible?: { require_idempotency_key: boolean };
  } = {},
): Promise<TestKey> {
  const slug = `t-${randomBytes(6).toString('hex')}`;
  const file = parsePackagesFile({
    providers: options.providers ?? {},
    packages: [
      {
        slug,
        name: `Test ${slug}`,
        quota_units: options.quota ?? 1000,
        limits: {
          requests_per_minute: options.rpm ?? 10_000,
          concurrency: options.concurrency ?? 100,
          ...(options.maxUploadBytes ? { max_upload_bytes: options.maxUploadBytes } : {}),
          ...(options.maxProviderCostPerDay !== undefined ? { max_provider_cost_per_day: options.maxProviderCostPerDay } : {}),
          ...(options.maxStoredBytes ? { max_stored_bytes: options.maxStoredBytes } : {}),
        },
        ...(options.unitPrice !== undefined ? { unit_price: options.unitPrice } : {}),
        ...(options.openaiCompatible ? { openai_compatible: options.openaiCompatible } : {}),
        operations: options.operations ?? {
          'text.generate': { engine: 'local', units: 1, output_formats: ['text', 'markdown', 'json'] },
          'code.generate': { engine: 'local', units: 2 },
        },
      },
    ],
  });
  await applyPackages(getPrisma(), CLI_ACTOR, file);
  const issued = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: slug });
  return { key: issued.key, id: issued.id, slug };
}

export async function remainingUnits(keyId: string): Promise<number> {
  const key = await getPrisma().apiKey.findUniqueOrThrow({ where: { id: keyId } });
  return key.remainingUnits;
}

/**
 * Whether the text names the port as a number of its own (`127.0.0.1:39135`, `port 39135`). Digits inside a random
 * id are not a mention: a request id's 32 hex characters hold any given five digits now and then.
 */
function namesPort(text: string, port: number): boolean {
  return new RegExp(`(?<![0-9A-Za-z])${port}(?![0-9A-Za-z])`).test(text);
}

/** Fails when `shown` (an answer's body and headers, or a text) holds any of `secrets` or names the provider's `port`. */
export function expectNothingShown(shown: CallResult | string, secrets: string[], port: number): void {
  const text =
    typeof shown === 'string' ? shown : `${shown.text}\n${[...shown.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n')}`;
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(namesPort(text, port), text).toBe(false);
}

export function expectEnvelope(result: CallResult, status: number, code: string): void {
  const problems: string[] = [];
  if (result.status !== status) problems.push(`status ${result.status} != ${status}`);
  const error = result.json?.error;
  if (!error || error.code !== code) problems.push(`code ${error?.code} != ${code}`);
  const keys = Object.keys(result.json ?? {});
  if (keys.length !== 1 || keys[0] !== 'error') problems.push(`top-level keys ${keys.join(',')}`);
  const extra = Object.keys(error ?? {}).filter((k) => !['code', 'message', 'request_id', 'details'].includes(k));
  if (extra.length) problems.push(`extra error fields ${extra.join(',')}`);
  if (typeof error?.message !== 'string' || !error.message) problems.push('no message');
  if (error?.request_id !== result.headers.get('x-request-id')) problems.push('request_id differs from X-Request-Id');
  if (!/^req_[A-Za-z0-9_-]{24,}$/.test(result.headers.get('x-request-id') ?? '')) problems.push('bad X-Request-Id');
  if (result.headers.get('cache-control') !== 'no-store') problems.push('no Cache-Control: no-store');
  if (problems.length) throw new Error(`${problems.join('; ')}\nbody: ${result.text}`);
}
