-- A job its key cancelled (POST /v1/jobs/{jobId}/cancel): its units are returned and a later result is discarded.
ALTER TYPE "JobStatus" ADD VALUE 'cancelled';
