import { z } from 'zod';
import { OPERATIONS } from '../../domain/operations';

// Inputs shared by several procedures. Lists take an opaque cursor from the previous page.
export const uuid = z.uuid();
export const cursor = z.string().min(1).max(500).optional();
export const limit = z.number().int().min(1).max(200).optional();
export const operation = z.enum(OPERATIONS);
export const page = { cursor, limit };
