import { ApiError } from './errors';

/** The one answer for an API key id that names no key (dashboard, CLI, portal), whatever acted on it. */
export const keyNotFound = (id: string) => new ApiError('not_found', { message: `No API key with id "${id}".` });
