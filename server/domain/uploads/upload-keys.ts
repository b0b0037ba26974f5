import { randomBytes } from 'node:crypto';

// Where an upload's bytes live. They arrive at its *upload key*, which a client may PUT to until
// the upload expires (directly, on S3 and Vercel Blob). Verified bytes are copied under a
// *sealed key* derived from it, which no client can write to, and the row then names that one.

// Named by the upload's public id alone: a presigned S3 or Blob URL carries nothing of the key.
export const uploadKeyFor = (uploadId: string) => `uploads/${uploadId}`;

const SEALED_SUFFIX = /\.[0-9a-f]{12}\.verified$/;

/** A new sealed key per verification attempt, so two racing completes never share one. */
export const newSealedKey = (uploadKey: string) => `${uploadKey}.${randomBytes(6).toString('hex')}.verified`;

/** The upload key of a row's storage key, whether the row names the sealed copy or not. */
export const uploadKeyOf = (storageKey: string) => storageKey.replace(SEALED_SUFFIX, '');
