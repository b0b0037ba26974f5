// Thrown when input media cannot be decoded (corrupt, truncated or not the declared type).
// The caller maps it to a 422 rather than a provider failure: retrying cannot help.
export class MediaDecodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaDecodeError';
  }
}
