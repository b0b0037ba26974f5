import type { JobStatus } from '../contract/values';

// A `jobs` row as the job code (jobs/), the job holds' statements (billing/job-holds.ts) and the
// jobs report read it: below all three, so none of them imports another for its shape.

export interface JobInput {
  prompt: string;
  /** uploadId: absent in jobs queued before jobs recorded the upload they consume. */
  inputUpload?: { uploadId?: string; storageKey: string; mimeType: string } | null;
}

export interface JobRow {
  id: string;
  api_key_id: string;
  operation: string;
  status: JobStatus;
  input: JobInput;
  engine: string;
  /** The package's engine list (empty on jobs from before fallbacks: `engine` alone). */
  engines: string[];
  units: number;
  hold_id: string | null;
  request_id: string;
  attempts: number;
  /** The attempt that last reached its engine (job-store.ts startJobAttempt). */
  engine_attempt: number | null;
  result_key: string | null;
  result_mime_type: string | null;
  error_code: string | null;
  error_message: string | null;
  /** Cancelled while running: charged, not returned. */
  charged_on_cancel: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A failed job's units were returned, as were those of a job cancelled before its provider was called. */
export function chargedUnits(job: Pick<JobRow, 'status' | 'units' | 'charged_on_cancel'>): number {
  if (job.status === 'failed') return 0;
  if (job.status === 'cancelled') return job.charged_on_cancel ? job.units : 0;
  return job.units;
}
