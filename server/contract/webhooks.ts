import { z } from 'zod';
import { described, timestamp } from './fields';
import { JOB_ID_PATTERN } from './values';

// The event a key's webhook endpoint receives when one of its jobs ends (an extension of v1,
// Standard Webhooks). Thin: the job itself is read with GET /v1/jobs/{jobId}.

export const JOB_EVENT_TYPES = ['job.succeeded', 'job.failed', 'job.cancelled'] as const;
export type JobEventType = (typeof JOB_EVENT_TYPES)[number];

export const jobEventSchema = z
  .strictObject({
    type: z.enum(JOB_EVENT_TYPES),
    timestamp: described(timestamp, 'When the job ended (the same on every attempt of this event).'),
    data: z.strictObject({
      job_id: z.string().regex(JOB_ID_PATTERN),
      status: z.enum(['succeeded', 'failed', 'cancelled']),
    }),
  })
  .meta({
    id: 'JobEvent',
    example: {
      type: 'job.succeeded',
      timestamp: '2026-11-28T03:04:05.678Z',
      data: { job_id: 'job_3pQm8sVtK2xYw9LrNc4bHd7f', status: 'succeeded' },
    },
  });

export type JobEvent = z.infer<typeof jobEventSchema>;
