import { NextResponse, type NextRequest } from 'next/server';
import { portalSignInInput } from '../../contract/portal';
import { getPrisma } from '../../db/client';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS, STORE_UNAVAILABLE_MESSAGE } from '../../db/store-unavailable';
import { ApiError } from '../../domain/errors';
import { endPortalSession, signInWithKey } from '../../domain/portal/portal-session';
import { zodValidationError } from '../../domain/zod-issues';
import { readBodyBytes, parseJsonObject } from '../read-json-body';
import { requireJsonContentType } from '../headers';
import { newRequestId } from '../request-id';
import { toErrorResponse } from '../responses';
import { isCrossSite } from '../same-origin';
import { clientAddress } from '../../auth/client-address';
import { acceptedConnection } from '../../auth/connection';
import { portalCookieName, portalCookieOptions, portalToken } from '../../auth/portal-cookie';
import { portalOffResponse } from './portal-off';

// POST /api/portal/session signs a customer in with their API key (JSON `{ "secret": ... }`) and
// sets the session cookie; DELETE signs out. Both refuse another site's request, as the dashboard does.

function refuseCrossSite(request: Request): void {
  if (isCrossSite(request))
    throw new ApiError('forbidden', { message: 'Cross-site requests to the portal are refused: use the portal itself.' });
}

/** The database away, in the portal's words: /v1's advice (an Idempotency-Key, replays) means nothing here. */
function portalError(error: unknown): unknown {
  if (!isStoreUnavailable(error)) return error;
  return new ApiError('provider_unavailable', { message: STORE_UNAVAILABLE_MESSAGE, retryAfter: STORE_RETRY_AFTER_SECONDS, cause: error });
}

export async function signInRoute(request: NextRequest): Promise<Response> {
  const off = portalOffResponse();
  if (off) return off;
  const requestId = newRequestId();
  try {
    refuseCrossSite(request);
    // JSON only, as the portal's page sends it: a form or text/plain is what another site can post without asking.
    requireJsonContentType(request);
    const body = parseJsonObject(await readBodyBytes(request));
    const parsed = portalSignInInput.safeParse(body);
    if (!parsed.success) throw zodValidationError(parsed.error, body);
    const address = clientAddress(acceptedConnection(), request.headers);
    const session = await signInWithKey(getPrisma(), { secret: parsed.data.secret, address });
    const response = NextResponse.json(
      { signed_in: true, expires_at: session.expiresAt.toISOString() },
      { headers: { 'Cache-Control': 'no-store' } },
    );
    response.cookies.set(portalCookieName(request.headers), session.token, portalCookieOptions(request.headers, session.expiresAt));
    return response;
  } catch (error) {
    return toErrorResponse(portalError(error), requestId);
  }
}

export async function signOutRoute(request: NextRequest): Promise<Response> {
  const off = portalOffResponse();
  if (off) return off;
  const requestId = newRequestId();
  try {
    refuseCrossSite(request);
    const name = portalCookieName(request.headers);
    const token = portalToken(request.headers, request.cookies);
    if (token) await endPortalSession(getPrisma(), token);
    const response = new NextResponse(null, { status: 204, headers: { 'Cache-Control': 'no-store' } });
    response.cookies.set(name, '', { ...portalCookieOptions(request.headers, new Date(0)), maxAge: 0 });
    return response;
  } catch (error) {
    return toErrorResponse(portalError(error), requestId);
  }
}
