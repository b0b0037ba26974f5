import { describe, expect, it } from 'vitest';
import { mergeSlashes } from '../../scripts/lib/merge-slashes';

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
