import { z } from 'zod';
import { OPERATIONS } from '../../domain/operations';

// Inputs shared by several procedures. Lists take an opaque cursor from the previous page.
export const uuid = z.uuid();
export const cursor = z.string().min(1).max(500).optional();
export const limit = z.number().int().min(1).max(200).optional();
export const operation = z.enum(OPERATIONS);
export const page = { cursor, limit };
/** A whole UTC day (YYYY-MM-DD) in the range the database's timestamps and JavaScript's ISO strings share. */
export const day = z.iso.date().refine((value) => value >= '1970-01-01' && value <= '9999-12-30', 'must be a day from 1970-01-01 to 9999-12-30');
