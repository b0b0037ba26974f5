import { ApiError } from '../../domain/errors';
import { portalEnabled } from '../../domain/portal/portal-settings';
import { newRequestId } from '../request-id';
import { toErrorResponse } from '../responses';

// PORTAL_ENABLED=false: the portal's endpoints answer 404, as if they did not exist (its page calls notFound()).

export function portalOffResponse(): Response | null {
  if (portalEnabled()) return null;
  return toErrorResponse(new ApiError('not_found', { message: 'The customer portal is off on this service.' }), newRequestId());
}
