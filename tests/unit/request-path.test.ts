import { describe, expect, it } from 'vitest';
import { safeCallbackPath, signInPathFor } from '../../server/auth/request-path';

describe('signInPathFor (where a signed-out visitor of the dashboard is sent)', () => {
  it('keeps the page asked for, without Next’s client-navigation marker', () => {
    expect(signInPathFor('/keys?status=active')).toBe('/signin?callbackUrl=%2Fkeys%3Fstatus%3Dactive');
    expect(signInPathFor('/jobs/job_abc?_rsc=1x2y')).toBe('/signin?callbackUrl=%2Fjobs%2Fjob_abc');
  });

  it('is the bare sign-in page for the overview or an unknown path', () => {
    expect(signInPathFor('/')).toBe('/signin');
    expect(signInPathFor(null)).toBe('/signin');
    expect(signInPathFor('http://elsewhere.example/')).toBe('/signin');
  });
});

describe('safeCallbackPath (where to go after signing in)', () => {
  it('keeps a path of the dashboard; anything that would leave the site is the overview', () => {
    expect(safeCallbackPath('/keys?status=active#top')).toBe('/keys?status=active#top');
    for (const crafted of [
      '/\\example.org',
      '//example.org',
      '/.//example.org',
      '/..//example.org',
      '/%2e//example.org',
      '/./\\example.org',
      'https://example.org/',
      '/signin',
      undefined,
    ]) {
      expect(safeCallbackPath(crafted), String(crafted)).toBe('/');
    }
  });
});
