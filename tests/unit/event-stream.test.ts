import { describe, expect, it, vi } from 'vitest';
import { acceptsEventStream, eventStreamResponse, eventText, KEEP_ALIVE_MS } from '@/server/http/event-stream';
import { buildOpenApiDocument } from '@/server/openapi/document';
import { V1_ROUTES } from '@/server/surfaces/v1';

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
    const document = buildOpenApiDocument(
      V1_ROUTES.map((route) => route.doc),
      'http://127.0.0.1:3000',
    ) as unknown as {
      paths: Record<string, { post: { responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }> } }>;
    };
    const content = (path: string) => document.paths[path]!.post.responses['200']!.content;
    expect(content('/v1/text/generate')['text/event-stream']!.schema.$ref).toBe('#/components/schemas/TextStreamEvent');
    expect(Object.keys(content('/v1/code/generate'))).toEqual(['application/json']);
  });
});

describe('keep-alive', () => {
  it('writes a comment at once and then every KEEP_ALIVE_MS while the work runs, then the done event', async () => {
    vi.useFakeTimers();
    try {
      let finish: (done: string) => void = () => {};
      const response = eventStreamResponse(
        'req_test',
        {},
        new AbortController().signal,
        () => new Promise<string>((resolve) => (finish = resolve)),
      );
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      const next = async () => decoder.decode((await reader.read()).value);
      expect(await next()).toBe(': keep-alive\n\n');
      vi.advanceTimersByTime(KEEP_ALIVE_MS);
      expect(await next()).toBe(': keep-alive\n\n');
      vi.advanceTimersByTime(KEEP_ALIVE_MS);
      expect(await next()).toBe(': keep-alive\n\n');
      finish('{"ok":true}');
      expect(await next()).toBe('event: done\ndata: {"ok":true}\n\n');
      expect((await reader.read()).done).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
