import { describe, expect, it } from 'vitest';
import { escapeMalformedPath, mergeSlashes, normalizeTarget, repeatedAuthorization, routedMethod } from '../../scripts/lib/normalize-request';

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

  it('does not touch an absolute-form target', () => {
    expect(mergeSlashes('http://127.0.0.1:3000//v1')).toBe('http://127.0.0.1:3000//v1');
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

  it('normalizeTarget merges slashes, then escapes', () => {
    expect(normalizeTarget('/v1//%zz')).toBe('/v1/%25zz');
  });
});

describe('routedMethod', () => {
  it('keeps the methods Next routes and hands every other one on as PATCH', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'DELETE', 'PATCH']) expect(routedMethod(method)).toBe(method);
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'PURGE', 'QUERY', 'LINK']) expect(routedMethod(method)).toBe('PATCH');
  });
});

describe('repeatedAuthorization', () => {
  it('joins repeated Authorization headers (any case) and leaves a single one alone', () => {
    expect(repeatedAuthorization(['Host', 'x', 'Authorization', 'Bearer a'])).toBeUndefined();
    expect(repeatedAuthorization(['authorization', 'Bearer a', 'Host', 'x', 'AUTHORIZATION', 'Bearer b'])).toBe('Bearer a, Bearer b');
  });
});
