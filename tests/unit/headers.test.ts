import { describe, expect, it } from 'vitest';
import { isApiError } from '@/server/domain/errors';
import { publicOrigin } from '@/server/auth/forwarded';
import { readIdempotencyKey, requireJsonContentType } from '@/server/http/headers';

const req = (headers: Record<string, string>) => new Request('http://127.0.0.1/v1/text/generate', { method: 'POST', headers });

function codeOf(work: () => unknown): string | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    if (!isApiError(error)) throw error;
    return error.code;
  }
}

describe('requireJsonContentType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'APPLICATION/JSON; Charset=UTF-8',
    'application/json;charset=utf-8',
    'application/json; charset="utf-8"',
    ' application/json ',
    'application/json;',
    'application/json ; ',
    'application/json;;',
    'application/json;charset=utf-8;',
    'application/json; ; charset=utf-8',
    'application/json ;charset=UTF-8 ; ',
    'application/json;\tcharset=utf-8',
    'application/json ; ; charset="UTF-8";;',
  ])('accepts %j', (value) => {
    expect(codeOf(() => requireJsonContentType(req({ 'Content-Type': value })))).toBeUndefined();
  });

  it.each([
    'text/plain',
    'application/json; charset=latin1',
    'application/json; charset=iso-8859-1',
    'application/jsonp',
    'application/json-patch+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    'application/json; boundary=x',
    'json',
    '*/*',
    'application/*',
    'application/json; charset=utf-8"',
    'application/json; charset="utf-8',
    'application/json; charset=',
    'application/json;charset=utf-8;boundary=x',
    'application/json; charset=utf-8 ; charset=latin1',
    'application/json; charset = utf-8',
    'application/json; charset= utf-8',
    'application/json; charset =utf-8',
    'application/json; charset=utf-8; charset=utf-8',
    'application/json charset=utf-8',
    'application/jsoncharset=utf-8',
  ])('refuses %j with 415', (value) => {
    expect(codeOf(() => requireJsonContentType(req({ 'Content-Type': value })))).toBe('unsupported_media_type');
  });

  it('answers long runs of blanks and semicolons at once (a pattern that backtracks would never finish these)', () => {
    for (const tail of ['; '.repeat(4000), ' ; '.repeat(3000), ';\t '.repeat(3000), '; charset=utf-8 '.repeat(800)]) {
      expect(codeOf(() => requireJsonContentType(req({ 'Content-Type': `application/json${tail}x` })))).toBe('unsupported_media_type');
    }
    expect(codeOf(() => requireJsonContentType(req({ 'Content-Type': `application/json${'; '.repeat(4000)}` })))).toBeUndefined();
  });

  it.each(['gzip', 'br', 'deflate', 'GZIP'])('refuses a body with Content-Encoding %j (415)', (coding) => {
    expect(codeOf(() => requireJsonContentType(req({ 'Content-Type': 'application/json', 'Content-Encoding': coding })))).toBe(
      'unsupported_media_type',
    );
  });

  it('accepts Content-Encoding: identity', () => {
    expect(
      codeOf(() => requireJsonContentType(req({ 'Content-Type': 'application/json', 'Content-Encoding': 'identity' }))),
    ).toBeUndefined();
  });

  it('refuses a missing Content-Type', () => {
    expect(codeOf(() => requireJsonContentType(req({})))).toBe('unsupported_media_type');
  });
});

describe('readIdempotencyKey', () => {
  const read = (value?: string) => readIdempotencyKey(req(value === undefined ? {} : { 'Idempotency-Key': value }));

  it('is missing_idempotency_key without the header', () => {
    expect(codeOf(() => read())).toBe('missing_idempotency_key');
  });

  it.each(['abc12345', 'A-Z_a.z~0:9', 'x'.repeat(128), '12345678'])('accepts %j bare', (value) => {
    expect(read(value)).toBe(value);
  });

  it('accepts the RFC 8941 string form and names the same key', () => {
    expect(read('"abc12345"')).toBe('abc12345');
    expect(read(`"${'k'.repeat(128)}"`)).toBe('k'.repeat(128));
  });

  it.each([
    ['7 chars', 'abc1234'],
    ['129 chars', 'x'.repeat(129)],
    ['a space inside', 'abc 12345'],
    ['a slash', 'abc/12345'],
    ['a plus', 'abc+12345'],
    ['non-ASCII', 'abcdéfghi'],
    ['empty quotes', '""'],
    ['a lone quote', '"abc12345'],
    ['quoted but 7 chars', '"abc1234"'],
    ['quoted and 129 chars', `"${'x'.repeat(129)}"`],
    ['double quoted', '""abc12345""'],
    ['an empty value', ''],
  ])('refuses %s with invalid_idempotency_key', (_name, value) => {
    expect(codeOf(() => read(value))).toBe('invalid_idempotency_key');
  });
});

describe('publicOrigin', () => {
  const at = (headers: Record<string, string>) => new Request('http://localhost:3000/v1/uploads', { headers });

  it('is the configured PUBLIC_BASE_URL when set, whatever the request says', () => {
    expect(publicOrigin(at({ host: 'evil.example' }), 'https://api.example.com', true)).toBe('https://api.example.com');
  });

  it("is the Host the client used, not the server's own name", () => {
    expect(publicOrigin(at({ host: 'api.example.test:8443' }), undefined, true)).toBe('http://api.example.test:8443');
    expect(publicOrigin(at({ host: '[::1]:3000' }), undefined, true)).toBe('http://[::1]:3000');
    expect(publicOrigin(at({ host: 'API.Example.TEST' }), undefined, true)).toBe('http://api.example.test');
  });

  it("follows a trusted load balancer's X-Forwarded-Host and X-Forwarded-Proto (first value)", () => {
    expect(
      publicOrigin(
        at({ host: '10.0.0.7:3000', 'x-forwarded-host': 'api.example.com, lb.internal', 'x-forwarded-proto': 'https,http' }),
        undefined,
        true,
      ),
    ).toBe('https://api.example.com');
    expect(publicOrigin(at({ host: 'api.example.com', 'x-forwarded-proto': 'gopher' }), undefined, true)).toBe('http://api.example.com');
  });

  it('ignores X-Forwarded-Host and X-Forwarded-Proto unless the proxy is trusted (TRUST_PROXY)', () => {
    const forwarded = at({ host: 'api.example.com', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
    expect(publicOrigin(forwarded, undefined, false)).toBe('http://api.example.com');
    expect(publicOrigin(forwarded, undefined, true)).toBe('https://evil.example');
  });

  it.each(['', 'a b', 'host/path', 'user@host', 'host:99999999', '[zz]', 'x'.repeat(300), 'a.'.repeat(40) + '!'])(
    "falls back to the server's own origin for the malformed Host %j",
    (host) => {
      expect(publicOrigin(at(host ? { host } : {}), undefined, true)).toBe('http://localhost:3000');
    },
  );

  it.each(['a b', 'evil.example/path?', 'ex\u00e9.com', ''])(
    "skips the malformed X-Forwarded-Host %j for the request's Host",
    (forwarded) => {
      expect(publicOrigin(at({ host: 'api.example.com', 'x-forwarded-host': forwarded }), undefined, true)).toBe('http://api.example.com');
    },
  );
});
