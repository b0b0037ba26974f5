// Every enum, limit and identifier pattern of the /v1 interface (interface-v1.md, CONTRACT.md),
// defined once: the request and response schemas, the domain, the dashboard and the OpenAPI
// document import them from here.

/** The operations a package can sell, with the paths that serve them (interface-v1.md §1). */
export const OPERATIONS = [
  'text.generate',
  'code.generate',
  'images.generate',
  'videos.generate',
  'audio.speech',
  'audio.transcribe',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The public surfaces a call can come through: `/v1`, and the OpenAI-compatible `/openai/v1`. */
export const SURFACES = ['v1', 'openai'] as const;
export type SurfaceName = (typeof SURFACES)[number];

/** Each surface's path, as the dashboard and the portal name the way a call came in. */
export const SURFACE_PATHS: Record<SurfaceName, string> = { v1: '/v1', openai: '/openai/v1' };

/** Each operation in words, shown beside its id to buyers and customers. */
export const OPERATION_NAMES: Record<Operation, string> = {
  'text.generate': 'Text generation',
  'code.generate': 'Code generation',
  'images.generate': 'Image generation',
  'videos.generate': 'Video generation',
  'audio.speech': 'Speech (text to audio)',
  'audio.transcribe': 'Transcription (audio to text)',
};

export const TEXT_OUTPUT_FORMATS = ['text', 'markdown', 'json'] as const;
export const IMAGE_OUTPUT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export const SPEECH_OUTPUT_FORMATS = ['mp3', 'wav'] as const;
export const TIMESTAMP_MODES = ['none', 'segment'] as const;

/**
 * `cancelled` only ever appears on a job its key cancelled (POST /v1/jobs/{jobId}/cancel, an
 * extension of v1): a client that never cancels sees the four statuses of CONTRACT.md §5.
 */
export const JOB_STATUSES = ['submitted', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const UPLOAD_STATUSES = ['pending', 'verified', 'expired'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

export const UPLOAD_PURPOSES = ['image_input', 'video_input', 'audio_input'] as const;
export type UploadPurpose = (typeof UPLOAD_PURPOSES)[number];

/** The upload purposes each upload-taking operation accepts as its input (CONTRACT.md §5). */
export const INPUT_UPLOAD_PURPOSES = {
  'images.generate': ['image_input'],
  'videos.generate': ['image_input', 'video_input'],
  'audio.transcribe': ['audio_input', 'video_input'],
} as const satisfies Partial<Record<Operation, readonly UploadPurpose[]>>;

export const UPLOAD_MIME_TYPES = [
  'image/jpeg',
  'image/png',
  'image/webp',
  'audio/mpeg',
  'audio/wav',
  'audio/x-wav',
  'audio/mp4',
  'video/mp4',
  'video/webm',
] as const;

/** The largest upload any package may allow (100 MiB); a package's `max_upload_bytes` defaults to it. */
export const MAX_UPLOAD_BYTES = 104_857_600;

/** A language tag as the interface takes it: `en`, `en-US`, `yue-Hant` (matched in any case). */
export const LANGUAGE_PATTERN = /^[A-Za-z]{2,3}(?:-[A-Za-z]{2,4})?$/;

/** CONTRACT.md §5: `job_` + 24 or more url-safe characters. */
export const JOB_ID_PATTERN = /^job_[A-Za-z0-9_-]{24,}$/;

/** interface-v1.md §2.3: the pattern of an upload id used as an input reference. */
export const UPLOAD_ID_PATTERN = /^upl_[A-Za-z0-9_-]{12,80}$/;

/** CONTRACT.md §1: `req_` + 24 or more url-safe characters. */
export const REQUEST_ID_PATTERN = /^req_[A-Za-z0-9_-]{24,}$/;

/** CONTRACT.md §1: 8 to 128 characters from `A-Z a-z 0-9 - _ . ~ :`, after an RFC 8941 string's quotes are taken off. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.~:-]{8,128}$/;

/** The header as sent: the key bare or as an RFC 8941 string (`"abc12345"`). */
export const IDEMPOTENCY_HEADER_PATTERN = new RegExp(
  `^(?:${IDEMPOTENCY_KEY_PATTERN.source.slice(1, -1)}|"${IDEMPOTENCY_KEY_PATTERN.source.slice(1, -1)}")$`,
);
