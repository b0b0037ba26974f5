import type { Delivery } from '../domain/billing/mark-delivered';

// A streamed answer's pieces reach the client only once its hold is durably marked delivered
// (billing/mark-delivered.ts): the first piece starts the mark, and every piece that comes
// while it commits waits, in order. A mark that fails writes nothing at all.

export interface FirstDeltaGate {
  /** The stream's delta sink: each piece, with who is answering (read once, for the mark). */
  onDelta(text: string, delivery: () => Delivery): void;
  /** Resolves once the mark committed and the waiting pieces were written (at once without a piece); rejects when it failed. */
  settled(): Promise<void>;
  /** The pieces written to the client, in order: output delivered, paid for once there is one. */
  readonly written: readonly string[];
}

/** `mark` is given who is answering and the first piece, the output known delivered should the request never settle. */
export function firstDeltaGate(
  write: (text: string) => boolean,
  mark: (delivery: Delivery, first: string) => Promise<void>,
  onFailure: (error: unknown) => void,
): FirstDeltaGate {
  const waiting: string[] = [];
  const written: string[] = [];
  let marked: Promise<void> | undefined;
  let open = false;
  const flush = () => {
    for (const text of waiting.splice(0)) if (write(text)) written.push(text);
  };
  return {
    onDelta(text, delivery) {
      waiting.push(text);
      if (open) flush();
      else if (!marked) {
        marked = mark(delivery(), text).then(
          () => {
            open = true;
            flush();
          },
          (error: unknown) => {
            waiting.length = 0;
            onFailure(error);
            throw error;
          },
        );
        marked.catch(() => {}); // the stream's end awaits it through settled()
      }
    },
    settled: () => marked ?? Promise.resolve(),
    written,
  };
}
