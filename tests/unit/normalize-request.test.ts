import { describe, expect, it } from 'vitest';
import {
  apiVary,
  DASHBOARD_BODY_LIMIT,
  dashboardBodyRefusal,
  dropFrameworkHeaders,
  apiPaths,
  withoutUnparseableCallbackCookie,
  escapeMalformedPath,
  mergeSlashes,
  normalizeTarget,
  decodeUnreserved,
  removeDotSegments,
  repeatedHeaders,
  routedMethod,
  toOriginForm,
  unsupportedTransferCoding,
} from '@/server/http/edge/normalize-request';

describe('mergeSlashes (npm start, before Next routes a request)', () => {
  it('merges repeated slashes in the path', () => {
    expect(mergeSlashes('/v1//text/generate')).toBe('/v1/text/generate');
    expect(mergeSlashes('//v1///jobs//job_abc')).toBe('/v1/jobs/job_abc');
  });

  it('leaves the query string and clean paths alone', () => {
    expect(mergeSlashes('/v1//files?u=https://x.test//a')).toBe('/v1/files?u=https://x.test//a');
    expect(mergeSlashes('/v1/text/generate?a=//b')).toBe('/v1/text/generate?a=//b');
    expect(mergeSlashes('/v1/text/generate/')).toBe('/v1/text/generate/');
  });

  it('leaves an absolute-form target alone (toOriginForm comes first)', () => {
    expect(mergeSlashes('http://127.0.0.1:3000//v1')).toBe('http://127.0.0.1:3000//v1');
  });
});

describe('decodeUnreserved (npm start, so that a path has one spelling for routes and idempotency scopes)', () => {
  it('decodes letters, digits and -._~ and nothing else (RFC 3986 §6.2.2.2)', () => {
    expect(decodeUnreserved('/v1/jobs/job%5Fabc%2D%7e%2E/cancel')).toBe('/v1/jobs/job_abc-~./cancel');
    expect(decodeUnreserved('/v1/%74ext/generate?q=%74')).toBe('/v1/text/generate?q=%74');
    for (const target of ['/v1/a%2Fb', '/v1/a%25b', '/v1/a%20b', '/v1/%E2%82%AC', '/v1/%zz', '/v1/plain']) {
      expect(decodeUnreserved(target)).toBe(target);
    }
  });

  it('decodes nothing in a path whose encoding does not decode, so that no new escape is made of its pieces', () => {
    expect(decodeUnreserved('/v1/uploads/upl%%35%46X/complete')).toBe('/v1/uploads/upl%%35%46X/complete');
    expect(normalizeTarget('/v1/uploads/upl%%35%46X/complete')).toBe('/v1/uploads/upl%25%2535%2546X/complete');
    expect(normalizeTarget('/v1/%%32%65%%32%65/v1/key')).toBe('/v1/%25%2532%2565%25%2532%2565/v1/key');
    expect(normalizeTarget(normalizeTarget('/%5%41%41'))).toBe(normalizeTarget('/%5%41%41'));
  });
});

describe('removeDotSegments (npm start, before it tells API paths from the rest)', () => {
  it.each([
    ['/x/../v1/key', '/v1/key'],
    ['/../v1/key', '/v1/key'],
    ['/./v1/key', '/v1/key'],
    ['/x/%2e%2e/v1/key', '/v1/key'],
    ['/.%2E/v1/key', '/v1/key'],
    ['/x/../openai/v1/models?a=/../b', '/openai/v1/models?a=/../b'],
    ['/v1/text/..', '/v1/'],
    ['/v1/jobs/.', '/v1/jobs/'],
  ])('reads %j as %j (RFC 3986 §5.2.4)', (target, path) => {
    expect(removeDotSegments(target)).toBe(path);
  });

  it('leaves segments that only contain dots alone', () => {
    for (const target of ['/v1/text/generate', '/files/a..b/c.mp4', '/v1/.../x', '/v1/%2e%2e%2e', '/v1/text?x=..']) {
      expect(removeDotSegments(target)).toBe(target);
    }
  });
});

describe('escapeMalformedPath (npm start, before Next routes a request)', () => {
  it.each(['/v1/%zz', '/v1/%', '/v1/%E0%A4%A', '/v1/text/%zz?x=1'])('escapes the %% signs of %j so it routes as literal text', (target) => {
    const escaped = escapeMalformedPath(target);
    expect(() => decodeURIComponent(escaped.split('?')[0]!)).not.toThrow();
    expect(decodeURIComponent(escaped.split('?')[0]!)).toBe(target.split('?')[0]);
  });

  it('leaves decodable paths and the query string alone', () => {
    expect(escapeMalformedPath('/v1/jobs/job_%41bc')).toBe('/v1/jobs/job_%41bc');
    expect(escapeMalformedPath('/v1/%zz?q=%zz')).toBe('/v1/%25zz?q=%zz');
    expect(escapeMalformedPath('/v1/text/generate?q=%zz')).toBe('/v1/text/generate?q=%zz');
  });

  it('escapes a backslash, which Next would read as / and redirect (308, outside the envelope)', () => {
    expect(normalizeTarget('/v1\\text\\generate')).toBe('/v1%5Ctext%5Cgenerate');
    expect(normalizeTarget('/v1/key\\?q=\\')).toBe('/v1/key%5C?q=\\');
    expect(normalizeTarget('/v1/%zz\\')).toBe('/v1/%25zz%5C');
    expect(isApiPath(normalizeTarget('/v1\\key'))).toBe(true);
    expect(isApiPath('/v1%5ckey')).toBe(true); // as sent, in either case
  });

  it('normalizeTarget merges slashes, removes dot segments, then escapes', () => {
    expect(normalizeTarget('/v1//%zz')).toBe('/v1/%25zz');
    expect(normalizeTarget('/x//../v1/%zz')).toBe('/v1/%25zz');
    expect(normalizeTarget('*')).toBe('*');
  });
});

describe('toOriginForm', () => {
  it('turns an absolute-form target into origin form and names its host (RFC 9112 §3.2.2)', () => {
    expect(toOriginForm('http://api.example.test:8080//v1/%zz?q=1')).toEqual({ target: '//v1/%zz?q=1', host: 'api.example.test:8080' });
    expect(toOriginForm('https://user@api.example.test')).toEqual({ target: '/', host: 'api.example.test' });
    expect(toOriginForm('http:///v1')).toEqual({ target: '/v1', host: undefined });
    expect(toOriginForm('http://api.example.test?x=1')).toEqual({ target: '/?x=1', host: 'api.example.test' });
  });

  it('leaves origin-form and asterisk-form targets alone', () => {
    expect(toOriginForm('/v1/text/generate?x=http://a')).toEqual({ target: '/v1/text/generate?x=http://a' });
    expect(toOriginForm('*')).toEqual({ target: '*' });
  });
});

/** The API's paths as npm start's server tells them: /v1 (the route table's one surface) and the signed URLs. */
const isApiPath = apiPaths(['/v1']);

describe('routedMethod', () => {
  it('keeps the methods Next routes, on every path', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH']) {
      expect(routedMethod(method, isApiPath('/v1/text/generate'))).toBe(method);
      expect(routedMethod(method, isApiPath('/keys'))).toBe(method);
    }
  });

  it("hands every other method on as PATCH on the API's paths only", () => {
    for (const path of ['/v1', '/v1/', '/v1/text/generate', '/v1?x', '/uploads/upl_x', '/files/outputs/a.png']) {
      for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'PURGE', 'QUERY', 'LINK'])
        expect(routedMethod(method, isApiPath(path)), `${method} ${path}`).toBe('PATCH');
    }
    for (const path of ['/', '/keys', '/api/trpc/keys.list', '/v10', '/v1x', '/uploadsx', '/signin']) {
      expect(routedMethod('TRACE', isApiPath(path)), path).toBeUndefined();
    }
  });
});

describe('repeatedHeaders', () => {
  it('joins a repeated header (any case) and leaves a single one alone', () => {
    expect(repeatedHeaders(['Host', 'x', 'Authorization', 'Bearer a']).authorization).toBeUndefined();
    expect(repeatedHeaders(['authorization', 'Bearer a', 'Host', 'x', 'AUTHORIZATION', 'Bearer b']).authorization).toBe(
      'Bearer a, Bearer b',
    );
    expect(repeatedHeaders(['Content-Type', 'application/json', 'content-type', 'text/plain'])['content-type']).toBe(
      'application/json, text/plain',
    );
    expect(repeatedHeaders(['Host', 'a.example', 'host', 'b.example']).host).toBe('a.example, b.example');
    expect(repeatedHeaders(['Host', 'a.example']).host).toBeUndefined();
  });
});

describe('dashboardBodyRefusal', () => {
  it("leaves the API's own routes to their streaming limits", () => {
    for (const target of ['/v1/text/generate', '/uploads/upl_x', '/files/outputs/x']) {
      expect(dashboardBodyRefusal(isApiPath(target), { 'content-length': String(50 * 1024 * 1024) })).toBeUndefined();
      expect(dashboardBodyRefusal(isApiPath(target), { 'transfer-encoding': 'chunked' })).toBeUndefined();
    }
  });

  it('refuses a body over 1 MiB (413) or of unknown length (411) anywhere else, before Next reads it whole', () => {
    expect(dashboardBodyRefusal(isApiPath('/api/auth/callback/credentials'), { 'content-length': String(60 * 1024 * 1024) })?.status).toBe(
      413,
    );
    expect(dashboardBodyRefusal(isApiPath('/api/trpc/keys.issue'), { 'content-length': String(DASHBOARD_BODY_LIMIT + 1) })?.status).toBe(
      413,
    );
    expect(dashboardBodyRefusal(isApiPath('/api/trpc/keys.issue'), { 'transfer-encoding': 'chunked' })?.status).toBe(411);
    expect(dashboardBodyRefusal(isApiPath('/api/trpc/keys.issue'), { 'content-length': String(DASHBOARD_BODY_LIMIT) })).toBeUndefined();
    expect(dashboardBodyRefusal(isApiPath('/signin'), {})).toBeUndefined();
  });
});

describe('dropFrameworkHeaders', () => {
  const sent = () => ({
    host: 'x',
    authorization: 'Bearer k',
    'content-type': 'application/json',
    'idempotency-key': 'abc12345',
    'x-forwarded-host': 'api.example',
    'x-request-id': 'mine',
    accept: '*/*',
    rsc: '1',
    'next-router-prefetch': '1',
    'next-router-state-tree': '%5B%5D',
    'next-url': '/x',
    'next-action': 'abc',
    'x-middleware-prefetch': '1',
    'x-middleware-subrequest': 'middleware',
    'x-nextjs-data': '1',
    'x-invoke-path': '/x',
    'x-matched-path': '/x',
    'x-now-route-matches': 'a=1',
    'x-prerender-revalidate': 't',
    'x-deployment-id': 'd',
    purpose: 'prefetch',
  });
  const kept = ['host', 'authorization', 'content-type', 'idempotency-key', 'x-forwarded-host', 'x-request-id', 'accept'];

  it.each(['/v1/text/generate', '/v1/jobs/job_x', '/v1/nope', '/v1', '/uploads/upl_x?sig=1', '/files/outputs/a.png'])(
    'removes what Next acts on from %s, and nothing else',
    (target) => {
      const headers = sent();
      dropFrameworkHeaders(isApiPath(target), headers);
      expect(Object.keys(headers).sort()).toEqual([...kept].sort());
    },
  );

  it("leaves the dashboard's headers alone (its client navigation uses them)", () => {
    const headers = sent();
    dropFrameworkHeaders(isApiPath('/keys'), headers);
    expect(headers).toEqual(sent());
  });
});

describe("apiVary (an API answer varies on no header of Next's router)", () => {
  it("drops Next's entries, in any case and spacing", () => {
    expect(apiVary('rsc, next-router-state-tree, next-router-prefetch, next-router-segment-prefetch')).toBeUndefined();
    expect(apiVary(['RSC,Next-Router-State-Tree', 'Next-URL'])).toBeUndefined();
  });

  it('keeps the entries a route sets itself', () => {
    expect(apiVary('rsc, next-router-state-tree, Accept-Encoding')).toBe('Accept-Encoding');
    expect(apiVary(['Origin', 'rsc'])).toBe('Origin');
  });

  it("applies to the API's own paths only", () => {
    for (const target of ['/v1/text/generate', '/v1', '/v1?x=1', '/uploads/upl_x?sig=1', '/files/outputs/a.png'])
      expect(isApiPath(target), target).toBe(true);
    for (const target of ['/', '/keys', '/docs', '/v10', '/api/trpc/keys.list']) expect(isApiPath(target), target).toBe(false);
  });
});

describe('withoutUnparseableCallbackCookie', () => {
  it('drops a next-auth callback-url cookie next-auth could not parse, and only that cookie', () => {
    expect(withoutUnparseableCallbackCookie('a=1; next-auth.callback-url=http%3A%2F%2F%5B; next-auth.session-token=t')).toBe(
      'a=1; next-auth.session-token=t',
    );
    expect(withoutUnparseableCallbackCookie('__Secure-next-auth.callback-url=http://%5B')).toBe('');
    expect(withoutUnparseableCallbackCookie('next-auth.callback-url=%E0%A4%A')).toBe(''); // not even percent-decodable
    expect(withoutUnparseableCallbackCookie('next-auth.callback-url=javascript%3Aalert(1); x=2')).toBe(' x=2');
  });

  it('leaves well-formed values, other cookies and no cookies alone', () => {
    expect(withoutUnparseableCallbackCookie(undefined)).toBeUndefined();
    expect(withoutUnparseableCallbackCookie('a=1; b=2')).toBeUndefined();
    expect(withoutUnparseableCallbackCookie('next-auth.callback-url=http%3A%2F%2Flocalhost%3A3000%2Fkeys')).toBeUndefined();
    expect(withoutUnparseableCallbackCookie('next-auth.callback-url=%2Fkeys')).toBeUndefined();
    expect(withoutUnparseableCallbackCookie('my-callback-url=http://%5B')).toBeUndefined();
  });
});

describe('unsupportedTransferCoding', () => {
  it('names a coding other than chunked, which Node would not undo', () => {
    expect(unsupportedTransferCoding(undefined)).toBeUndefined();
    expect(unsupportedTransferCoding('chunked')).toBeUndefined();
    expect(unsupportedTransferCoding(' Chunked ')).toBeUndefined();
    expect(unsupportedTransferCoding('gzip, chunked')).toBe('gzip');
    expect(unsupportedTransferCoding('chunked, x-custom')).toBe('x-custom');
  });
});
