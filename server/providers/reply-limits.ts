// What a provider's reply may hold: JSON (text, code, base64 images) 16 MiB, media 100 MiB, a
// streamed text answer 16 MiB of text. A larger reply, read whole, would exhaust the server's heap
// (a stream of 128 MB did: streams audit), so it is cut off as a provider failure.

const JSON_REPLY_LIMIT = 16 * 1024 * 1024;
const MEDIA_REPLY_LIMIT = 104_857_600;

/** The most a streamed text answer may add up to (UTF-8 bytes): as much as a JSON reply may hold. */
export const STREAMED_TEXT_LIMIT = JSON_REPLY_LIMIT;

export const limitFor = (contentType: string | null | undefined) =>
  (contentType ?? '').includes('json') ? JSON_REPLY_LIMIT : MEDIA_REPLY_LIMIT;

export class ReplyTooLargeError extends Error {}

export const tooLarge = (limit: number) => new ReplyTooLargeError(`the provider's reply is larger than ${limit} bytes`);
