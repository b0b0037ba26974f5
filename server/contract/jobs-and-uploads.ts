import { z } from 'zod';
import { described, fileName, text, timestamp, uploadId } from './fields';
import { JOB_ID_PATTERN, JOB_STATUSES, MAX_UPLOAD_BYTES, UPLOAD_MIME_TYPES, UPLOAD_PURPOSES, UPLOAD_STATUSES } from './values';

// Video jobs and uploads (interface-v1.md §2.2, §2.3, §4.4, §4.7-4.9; CONTRACT.md §5).

export const videosGenerateRequest = z
  .strictObject({
    prompt: text(1, 32_000),
    input_upload_id: described(
      uploadId,
      "A verified image or video upload of the calling key, when the key's package takes input uploads for videos (else 422 `not_allowed_by_package`).",
    ).optional(),
  })
  .meta({ id: 'VideosGenerateRequest', example: { prompt: 'A paper boat drifting down a rain-soaked street.' } });

export const jobSchema = z
  .strictObject({
    job_id: z.string().regex(JOB_ID_PATTERN),
    object: z.literal('job'),
    operation: z.literal('videos.generate'),
    status: z.enum(JOB_STATUSES),
    created_at: timestamp,
    updated_at: timestamp,
    result: z.strictObject({ url: z.string().meta({ format: 'uri' }), expires_at: timestamp, mime_type: z.string() }).nullable(),
    error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
    usage: z.strictObject({ charged_units: z.number().int().min(0) }),
  })
  .meta({ id: 'Job' });

/** POST /v1/jobs/{jobId}/cancel takes an empty object: any member is 422. */
export const cancelJobRequest = z.strictObject({}).meta({ id: 'CancelJobRequest', example: {} });

/** The 202 of POST /v1/videos/generate: a Job that has just been accepted. */
export const submittedJobSchema = jobSchema.extend({ status: z.literal('submitted') }).meta({ id: 'SubmittedJob' });

const sha256 = z.string().regex(/^[a-f0-9]{64}$/, 'must be a lowercase hex SHA-256 digest');

/** Bounds first, each ending the check: one issue for 2^53 + 1, not a second about JavaScript's safe integers. */
const sizeBytes = z.number().min(1, { abort: true }).max(MAX_UPLOAD_BYTES, { abort: true }).int();
export const createUploadRequest = z
  .strictObject({
    purpose: z.enum(UPLOAD_PURPOSES).meta({
      description:
        'Must fit mime_type (image_input: image/*, audio_input: audio/*, video_input: video/*) and be taken by an ' +
        "operation of the key's package (images.generate: image_input; videos.generate: image_input or video_input; " +
        'audio.transcribe: audio_input or video_input), else 422.',
    }),
    filename: fileName(1, 180),
    mime_type: z.enum(UPLOAD_MIME_TYPES),
    size_bytes: sizeBytes,
    sha256,
  })
  .meta({
    id: 'CreateUploadRequest',
    example: {
      purpose: 'audio_input',
      filename: 'meeting.wav',
      mime_type: 'audio/wav',
      size_bytes: 1_048_576,
      sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
    },
  });

export const completeUploadRequest = z
  .strictObject({ sha256 })
  .meta({ id: 'CompleteUploadRequest', example: { sha256: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9' } });

export const uploadSchema = z
  .strictObject({
    upload_id: uploadId,
    object: z.literal('upload'),
    status: z.enum(UPLOAD_STATUSES),
    purpose: z.enum(UPLOAD_PURPOSES),
    filename: z.string(),
    mime_type: z.enum(UPLOAD_MIME_TYPES),
    size_bytes: sizeBytes,
    sha256: z.string(),
    created_at: timestamp,
    expires_at: described(
      timestamp,
      'Until when the bytes may be sent and the upload completed; one never verified by then is `expired`. A verified upload stays usable as an input after it.',
    ),
    verified_at: timestamp.nullable(),
    upload_url: z.string().meta({ format: 'uri' }).optional(),
    upload_method: z.literal('PUT').optional(),
    upload_headers: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: 'Upload' });

/** The 201 of POST /v1/uploads: the Upload with where and how to send its bytes. */
export const createdUploadSchema = uploadSchema
  .required({ upload_url: true, upload_method: true, upload_headers: true })
  .meta({ id: 'CreatedUpload' });

export type VideosGenerateRequest = z.infer<typeof videosGenerateRequest>;
export type CreateUploadRequest = z.infer<typeof createUploadRequest>;
export type CompleteUploadRequest = z.infer<typeof completeUploadRequest>;
export type JobView = z.infer<typeof jobSchema>;
export type UploadView = z.infer<typeof uploadSchema>;
