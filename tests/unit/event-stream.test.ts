import { describe, expect, it } from 'vitest';
import { acceptsEventStream, eventText } from '@/server/http/event-stream';
import { buildOpenApiDocument } from '@/server/openapi/document';

const withAccept = (accept?: string) => new Request('http://127.0.0.1/v1/text/generate', { headers: accept ? { Accept: accept } : {} });

describe('acceptsEventStream', () => {
  it('asks for a stream when Accept names text/event-stream with a q above 0', () => {
    for (const accept of [
      'text/event-stream',
      'Text/Event-Stream',
      'application/json, text/event-stream;q=0.5',
      ' text/event-stream ; charset=utf-8',
    ]) {
      expect(acceptsEventStream(withAccept(accept)), accept).toBe(true);
    }
  });

  it('answers JSON otherwise', () => {
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'text/*',
      'text/event-stream;q=0',
      'text/event-streams',
      'text/event-stream;q=0.0',
    ]) {
      expect(acceptsEventStream(withAccept(accept)), String(accept)).toBe(false);
    }
  });
});

describe('the event stream', () => {
  it('writes an event as its name and one data line', () => {
    expect(eventText('delta', JSON.stringify({ text: 'a\nb' }))).toBe('event: delta\ndata: {"text":"a\\nb"}\n\n');
  });

  it('is described in the OpenAPI document for text.generate only', () => {
    const document = buildOpenApiDocument('http://127.0.0.1:3000') as unknown as {
      paths: Record<string, { post: { responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }> } }>;
    };
    const content = (path: string) => document.paths[path]!.post.responses['200']!.content;
    expect(content('/v1/text/generate')['text/event-stream']!.schema.$ref).toBe('#/components/schemas/TextStreamEvent');
    expect(Object.keys(content('/v1/code/generate'))).toEqual(['application/json']);
  });
});
