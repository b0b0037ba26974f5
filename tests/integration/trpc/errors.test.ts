import { randomUUID } from 'node:crypto';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPCError } from '@trpc/server';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { disconnectDb, getSqlDb } from '@/server/db/client';
import { isStreamOnly } from '@/server/contract/error-catalog';
import { ApiError, ERROR_CATALOG, ERROR_CODES } from '@/server/domain/errors';
import { appRouter } from '@/server/trpc/app-router';
import { createInnerContext } from '@/server/trpc/context';
import { toTRPCError } from '@/server/trpc/error-map';
import { trpcOnError } from '@/server/trpc/response-meta';
import { dashboardCallerOf } from '@/server/trpc/server-caller';
import { expectTrpcError, operatorCaller } from './helpers';
import { POST as dashboardPost } from '@/app/api/trpc/[trpc]/route';
import { POST as portalPost } from '@/app/api/portal/trpc/[trpc]/route';

afterAll(() => disconnectDb());

describe('errors map from the catalog of the REST API', () => {
  it.each(ERROR_CODES.filter((code) => !isStreamOnly(code)))('%s answers tRPC with the same HTTP status', (code) => {
    const error = toTRPCError(new ApiError(code));
    const status = ERROR_CATALOG[code].status;
    expect(getHTTPStatusCodeFromError(error)).toBe(status);
    expect(error.cause).toBeInstanceOf(ApiError);
    // A 500 says nothing of its insides; a 503 says its own sentence (the service or the database away says it is).
    expect(error.message).toBe(status === 500 ? ERROR_CATALOG.internal_error.message : ERROR_CATALOG[code].message);
  });
});

describe('input validation of the detail reads', () => {
  it('refuses malformed ids and slugs with BAD_REQUEST and names the field', async () => {
    const { caller } = await operatorCaller();
    const error = await expectTrpcError(caller.keys.get({ id: 'not-a-uuid' }), 'BAD_REQUEST');
    expect(error.cause).toMatchObject({ issues: [expect.objectContaining({ path: ['id'] })] });
    await expectTrpcError(caller.packages.get({ slug: '' }), 'BAD_REQUEST');
    await expectTrpcError(caller.jobs.get({ id: '' }), 'BAD_REQUEST');
    await expectTrpcError(caller.uploads.get({ id: '' }), 'BAD_REQUEST');
    // @ts-expect-error unknown fields are refused, as on the REST API
    await expectTrpcError(caller.keys.list({ colour: 'blue' }), 'BAD_REQUEST');
  });
});

describe('the /api/trpc wire format', () => {
  async function post(path: string, input: unknown, signedIn: boolean) {
    const { operator } = await operatorCaller();
    const session = signedIn
      ? { operatorId: operator.id, email: operator.email, role: operator.role, expires: new Date(Date.now() + 60_000).toISOString() }
      : null;
    const response = await fetchRequestHandler({
      endpoint: '/api/trpc',
      req: new Request(`http://localhost/api/trpc/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      }),
      router: appRouter,
      createContext: () => createInnerContext(session),
    });
    return { status: response.status, body: (await response.json()) as { error: { message: string; data: Record<string, unknown> } } };
  }

  it('refuses text no column can hold, in any input, with 422: a NUL, or a lone surrogate (a label with one was a 500)', async () => {
    for (const [label, message] of [
      ['a\ud800b', 'Text must be valid Unicode (no lone surrogates).'],
      ['a\u0000b', 'Text must not contain the NUL character (U+0000).'],
    ] as const) {
      const refused = await post('keys.updateLabel', { id: randomUUID(), label }, true);
      expect([refused.status, refused.body.error.message]).toEqual([422, message]);
    }
    // A pair is a character like any other: past the check, the unknown key is 404.
    expect((await post('keys.updateLabel', { id: randomUUID(), label: 'ok \ud83d\ude00' }, true)).status).toBe(404);
  });

  it('refuses, as /v1 does, a body whose bytes are no UTF-8 or that names a member twice (stored as U+FFFD, the last kept; outside audit)', async () => {
    const origin = 'http://ops.example.com:3000';
    const send = (route: typeof dashboardPost, path: string, body: string | Uint8Array<ArrayBuffer>) =>
      route(new Request(`${origin}${path}`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body }));
    const invalidUtf8 = new Uint8Array([...Buffer.from('{"label":"'), 0xff, 0xfe, ...Buffer.from('","packageSlug":"starter"}')]);
    for (const [route, path] of [
      [dashboardPost, '/api/trpc/keys.issue'],
      [portalPost, '/api/portal/trpc/requestChange'],
    ] as const) {
      for (const [body, message] of [
        ['{"label":"a","label":"b","packageSlug":"starter"}', 'The request body repeats the member "label".'],
        [invalidUtf8, 'The request body is not valid UTF-8.'],
      ] as const) {
        const refused = await send(route, path, body);
        const answer = (await refused.json()) as { error: { message: string; data: { apiCode: string } } };
        expect([refused.status, answer.error.message, answer.error.data.apiCode], path).toEqual([400, message, 'invalid_request']);
      }
    }
  });

  it("says a field's own bound, not JavaScript's safe-integer one, for a number past both (outside audit)", async () => {
    const refused = await post('keys.topUp', { id: randomUUID(), units: 1e16 }, true);
    expect([refused.status, refused.body.error.message]).toEqual([400, 'Too big: expected number to be <=1000000000']);
    expect(refused.body.error.data.issues).toEqual([
      { path: 'units', code: 'too_big', message: 'Too big: expected number to be <=1000000000' },
    ]);
  });

  it('logs a failure nobody expected for the operator (the browser gets a sentence)', () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      trpcOnError({ error: new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new Error('boom') }), path: 'keys.updateLabel' });
      trpcOnError({ error: new TRPCError({ code: 'NOT_FOUND' }), path: 'keys.get' });
      expect(logged.mock.calls).toEqual([['[trpc keys.updateLabel] unexpected error', new Error('boom')]]);
    } finally {
      logged.mockRestore();
    }
  });

  it('carries the HTTP status, the catalog code and the field issues; no stack', async () => {
    const missing = await post('keys.topUp', { id: randomUUID(), units: 5 }, true);
    expect(missing.status).toBe(404);
    expect(missing.body.error.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, apiCode: 'not_found' });
    expect(missing.body.error.data).not.toHaveProperty('stack');
    const invalid = await post('packages.createVersion', { definition: { slug: 'BAD SLUG' }, mode: 'new-package' }, true);
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.data.apiCode).toBe('validation_error');
    expect(invalid.body.error.data.issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'slug' }), expect.objectContaining({ path: 'name', code: 'required' })]),
    );
    const badInput = await post('keys.topUp', { id: 'x', units: 0 }, true);
    expect(badInput.status).toBe(400);
    expect((badInput.body.error.data.issues as { path: string }[]).map((issue) => issue.path).sort()).toEqual(['id', 'units']);
    // Its message is the first issue's sentence, not the issues as JSON (a form shows it as is).
    const firstIssue = (badInput.body.error.data.issues as { message: string }[])[0]!.message;
    expect(badInput.body.error.message).toBe(firstIssue);
    expect(badInput.body.error.message).not.toMatch(/^\s*\[/);
    const anonymous = await post('keys.topUp', { id: randomUUID(), units: 5 }, false);
    expect(anonymous.status).toBe(401);
  });
});

describe("a dashboard page's caller", () => {
  it('tells its page when a procedure found the database away, so that its answer is 503 (it was Next 500)', async () => {
    const { operator } = await operatorCaller('viewer');
    const session = {
      operatorId: operator.id,
      email: operator.email,
      role: operator.role,
      expires: new Date(Date.now() + 60_000).toISOString(),
    };
    const heard = vi.fn();
    const { caller } = await dashboardCallerOf(session, '/', 'viewer', heard);
    await caller.refusals.overview({});
    await expectTrpcError(caller.keys.get({ id: 'not-a-uuid' }), 'BAD_REQUEST');
    expect(heard).not.toHaveBeenCalled();
    // What pg says when PostgreSQL takes no new connection (its postmaster stopped) while the session's was open.
    const refused = vi.spyOn(getSqlDb().pool, 'query').mockRejectedValue(new Error('timeout exceeded when trying to connect'));
    try {
      await expect(caller.refusals.overview({})).rejects.toBeInstanceOf(TRPCError);
    } finally {
      refused.mockRestore();
    }
    expect(heard).toHaveBeenCalled();
  });
});
