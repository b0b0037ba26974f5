import { getPrisma } from '../../db/client';
import { ApiError } from '../../domain/errors';
import { handleSalesEvent } from '../../domain/sales/payment-events';
import { getStripe, stripeSettings } from '../../payments/stripe-client';
import { salesEventOf, verifyStripeEvent } from '../../payments/webhook-events';
import { newRequestId } from '../request-id';
import { jsonResponse, toErrorResponse } from '../responses';

// POST /api/stripe/webhook: Stripe's deliveries. The signature is checked on the raw body before
// anything is read from it; a bad one is 400 and changes nothing. A 5xx makes Stripe deliver again.

/** Stripe's events are far smaller; a larger body is not Stripe's. */
const MAX_EVENT_BYTES = 1024 * 1024;

export async function handleStripeWebhook(request: Request): Promise<Response> {
  const requestId = newRequestId();
  const stripe = getStripe();
  const settings = stripeSettings();
  if (!stripe || !settings) return toErrorResponse(new ApiError('not_found', { message: 'Selling is off on this service.' }), requestId);
  const length = Number(request.headers.get('content-length') ?? 0);
  if (length > MAX_EVENT_BYTES) return toErrorResponse(new ApiError('payload_too_large'), requestId);
  const verified = verifyStripeEvent(stripe, await request.text(), request.headers.get('stripe-signature') ?? '', settings.webhookSecret);
  if ('refusal' in verified) return toErrorResponse(new ApiError('invalid_request', { message: verified.refusal }), requestId);
  const { event } = verified;
  try {
    const result = await handleSalesEvent(getPrisma(), stripe, salesEventOf(event));
    return jsonResponse(200, { received: true, result: result.state }, requestId);
  } catch (error) {
    return toErrorResponse(error, requestId);
  }
}
