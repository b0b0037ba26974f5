import { describe, expect, it } from 'vitest';
import { createUploadRequest, videosGenerateRequest } from '@/server/contract/jobs-and-uploads';
import { textGenerateRequest } from '@/server/contract/generation';

// PostgreSQL's text cannot hold U+0000 (a stored prompt or filename failed with a 500): every
// text field refuses it as a validation error, stored or not.

describe('text fields and U+0000', () => {
  it.each([
    ['videos prompt', videosGenerateRequest, { prompt: 'a\u0000b' }],
    [
      'upload filename',
      createUploadRequest,
      { purpose: 'image_input', filename: 'a\u0000b.png', mime_type: 'image/png', size_bytes: 1, sha256: 'a'.repeat(64) },
    ],
    ['text input', textGenerateRequest, { input: '\u0000' }],
  ])('%s with a NUL is refused with a clear issue', (_, schema, body) => {
    const result = schema.safeParse(body);
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((issue) => issue.message)).toContain('must not contain the NUL character (U+0000)');
  });

  it('other control characters are text like any other', () => {
    expect(textGenerateRequest.safeParse({ input: 'tab\there\u0001\u2028' }).success).toBe(true);
  });
});
