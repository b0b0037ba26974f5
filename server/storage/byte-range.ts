// One byte range of an object (RFC 9110 §14), as a client's `Range: bytes=…` asks for it, so that a
// browser can seek in a video or resume a download. Only one range per request: a request for
// several, or one that cannot be read, is answered with the whole object (a server may ignore
// Range), as is a range the object cannot satisfy (past its end).

/** first..last inclusive, first to the end, or the last `suffix` bytes. */
export type ByteRange = { first: number; last?: number } | { suffix: number };

/** The bytes of an object a range selects. */
export interface SelectedBytes {
  start: number;
  /** Inclusive. */
  end: number;
}

const SINGLE_RANGE = /^bytes=(\d{0,15})-(\d{0,15})$/;

/** The one range a `Range` header asks for; undefined for none, several, or one that does not parse. */
export function parseRangeHeader(header: string | null): ByteRange | undefined {
  const match = header ? SINGLE_RANGE.exec(header.trim()) : null;
  if (!match) return undefined;
  const [, first, last] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') return Number(last) > 0 ? { suffix: Number(last) } : undefined;
  if (last !== '' && Number(last) < Number(first)) return undefined;
  return last === '' ? { first: Number(first) } : { first: Number(first), last: Number(last) };
}

/** The bytes `range` selects from an object of `size` bytes; null when it selects none. */
export function selectBytes(range: ByteRange, size: number): SelectedBytes | null {
  if ('suffix' in range) return size === 0 ? null : { start: Math.max(0, size - range.suffix), end: size - 1 };
  if (range.first >= size) return null;
  return { start: range.first, end: Math.min(range.last ?? size - 1, size - 1) };
}

/** Selected bytes as a `Range` header, for a store that reads ranges itself (S3, Vercel Blob). */
export function rangeHeaderOf(selected: SelectedBytes): string {
  return `bytes=${selected.start}-${selected.end}`;
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+)$/;

/** A store's `Content-Range: bytes start-end/size` answer to a range it read; null when it is not one. */
export function parseContentRange(header: string | null | undefined): (SelectedBytes & { size: number }) | null {
  const match = header ? CONTENT_RANGE.exec(header.trim()) : null;
  if (!match) return null;
  return { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) };
}
