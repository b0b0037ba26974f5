import { expect } from 'vitest';
import { textStreamEvent } from '@/server/contract/generation';
import { BASE, newIdempotencyKey, api } from './api';

// Reading a streamed POST /v1/text/generate (Accept: text/event-stream) event by event, each
// checked against the OpenAPI document's TextStreamEvent schema; in process or through a server.

export interface StreamEvent {
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  /** The `data:` line as it was sent. */
  raw: string;
}

/** Reads an event stream one event at a time; comments are collected aside. */
export class EventReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  readonly comments: string[] = [];

  constructor(readonly response: Response) {
    this.reader = response.body!.getReader();
  }

  async next(): Promise<StreamEvent | undefined> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const lines = block.split('\n');
        if (lines.every((line) => line.startsWith(':'))) {
          this.comments.push(...lines);
          continue;
        }
        const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
        const raw = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
        textStreamEvent.parse({ event, data: JSON.parse(raw) }); // the OpenAPI document's shape of it
        return { event, data: JSON.parse(raw), raw };
      }
      const { done, value } = await this.reader.read();
      if (done) {
        expect(this.buffer, 'nothing after the last event').toBe('');
        return undefined;
      }
      this.buffer += this.decoder.decode(value, { stream: true });
    }
  }

  async rest(): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    for (let event = await this.next(); event; event = await this.next()) events.push(event);
    return events;
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

export const streamHeaders = (key: string, idempotencyKey: string) => ({
  Authorization: `Bearer ${key}`,
  'Content-Type': 'application/json',
  'Idempotency-Key': idempotencyKey,
  Accept: 'text/event-stream',
});

/** A streamed text.generate through the route handler, in process. */
export async function openStream(key: string, body: unknown, idempotencyKey = newIdempotencyKey()): Promise<EventReader> {
  const init = { method: 'POST', headers: streamHeaders(key, idempotencyKey), body: JSON.stringify(body) };
  return new EventReader(await api(new Request(`${BASE}/v1/text/generate`, init)));
}
