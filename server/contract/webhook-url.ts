import { z } from 'zod';

/** A job webhook endpoint as typed into the dashboard or the portal (its address rules: server/domain/webhooks/endpoint-address.ts). */
export const webhookUrlField = z
  .string()
  .trim()
  .min(1, 'The endpoint URL is required: an https:// address.')
  .max(2000, 'The endpoint URL is at most 2,000 characters.');
