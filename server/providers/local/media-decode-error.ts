import { FfmpegError } from './ffmpeg';

// Thrown when input media cannot be decoded (corrupt, truncated or not the declared type).
// The caller maps it to a 422 rather than a provider failure: retrying cannot help.
export class MediaDecodeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MediaDecodeError';
  }
}

/**
 * What an audio decode's failure means to the caller: ffmpeg's `-map 0:a:0` on a file without
 * sound (a video with no audio track is no corrupt file) or undecodable input, as a
 * MediaDecodeError; any other error as it is.
 */
export function audioDecodeFailure(error: unknown): unknown {
  if (!(error instanceof FfmpegError)) return error;
  const silent = /Stream map '0:a:0' matches no streams/.test(error.stderrTail);
  return new MediaDecodeError(silent ? 'The input has no audio track.' : 'The input could not be decoded as audio.', { cause: error });
}
