import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Stripe from 'stripe';

// A fake Stripe API on 127.0.0.1 (port 0, or the one given) for the calls the product makes
// through the official SDK (pointed here by STRIPE_API_BASE: its host, port and protocol):
// POST /v1/checkout/sessions, GET /v1/checkout/sessions/:id (expand payment_intent.latest_charge),
// GET /v1/payment_intents/:id and /v1/charges/:id. It also serves what a buyer's browser sees:
// a hosted checkout page whose "Pay" marks the session paid (or, "confirmed later", complete and
// unpaid, as an asynchronous method leaves it), optionally delivers the signed
// checkout.session.completed to the product, and redirects to success_url as Stripe does; and
// the charge's receipt page. Events are signed with stripe.webhooks.generateTestHeaderString.

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  /** Unix seconds: a day after creation unless the create asked for another time (as Stripe). */
  expires_at: number;
  payment_status: 'unpaid' | 'paid' | 'no_payment_required';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  customer: string | null;
  customer_email: string | null;
  customer_details: { email: string } | null;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  url: string;
  line_items: FormValue;
}

export interface FakeCharge {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  currency: string;
  payment_intent: string;
  receipt_url: string;
  refunded: boolean;
}

type FormValue = string | { [key: string]: FormValue };

/** Stripe's form encoding (a[b][0][c]=v) back into nested objects; list indexes stay keys. */
export function parseStripeForm(body: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node = root as Record<string, FormValue>;
    path.slice(0, -1).forEach((segment) => {
      if (typeof node[segment] !== 'object') node[segment] = {};
      node = node[segment] as Record<string, FormValue>;
    });
    node[path.at(-1)!] = value;
  }
  return root;
}

const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;
const at = (value: FormValue | undefined, ...path: string[]): string | undefined => {
  let node: FormValue | undefined = value;
  for (const segment of path) node = typeof node === 'object' ? node[segment] : undefined;
  return typeof node === 'string' ? node : undefined;
};

export interface FakeStripeOptions {
  port?: number;
  /** Where "Pay" delivers checkout.session.completed (the product's /api/stripe/webhook); none when unset. */
  webhookUrl?: string;
  webhookSecret?: string;
  /** How long a new session lives (its expires_at) when the create does not say; Stripe's default is a day. */
  sessionSeconds?: number;
}

export interface SignedDelivery {
  payload: string;
  header: string;
  event: Stripe.Event;
}

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;

export async function startFakeStripe(options: FakeStripeOptions = {}) {
  const sessions = new Map<string, FakeSession>();
  const charges = new Map<string, FakeCharge>();
  const intents = new Map<string, { id: string; object: 'payment_intent'; latest_charge: string; amount: number; status: string }>();
  const calls: { method: string; path: string; body: Record<string, FormValue>; idempotencyKey?: string }[] = [];
  const idempotent = new Map<string, FakeSession>();
  const deliveries: { type: string; status: number }[] = [];
  const sockets = new Set<Socket>();
  let base = '';

  function createSession(body: Record<string, FormValue>, idempotencyKey?: string): FakeSession {
    const cached = idempotencyKey ? idempotent.get(idempotencyKey) : undefined;
    if (cached) return cached;
    const id = newId('cs');
    const item = (body.line_items as Record<string, FormValue> | undefined)?.['0'];
    const session: FakeSession = {
      id,
      object: 'checkout.session',
      mode: at(body, 'mode') ?? 'payment',
      status: 'open',
      expires_at: Number(at(body, 'expires_at') ?? Math.floor(Date.now() / 1000) + (options.sessionSeconds ?? 86_400)),
      payment_status: 'unpaid',
      amount_total: Number(at(item, 'price_data', 'unit_amount') ?? 0) * Number(at(item, 'quantity') ?? 1),
      currency: at(item, 'price_data', 'currency') ?? 'usd',
      client_reference_id: at(body, 'client_reference_id') ?? null,
      metadata: (body.metadata ?? {}) as Record<string, string>,
      customer: null,
      customer_email: at(body, 'customer_email') ?? null,
      customer_details: null,
      payment_intent: null,
      success_url: at(body, 'success_url') ?? '',
      cancel_url: at(body, 'cancel_url') ?? '',
      url: `${base}/checkout/${id}`,
      line_items: body.line_items ?? {},
    };
    sessions.set(id, session);
    if (idempotencyKey) idempotent.set(idempotencyKey, session);
    return session;
  }

  /** The session as the API returns it, with payment_intent (and its latest_charge) expanded when asked. */
  function sessionView(session: FakeSession, expand: string[]): unknown {
    const { line_items: _items, ...view } = session;
    if (!session.payment_intent || !expand.some((path) => path.startsWith('payment_intent'))) return view;
    const intent = intents.get(session.payment_intent)!;
    const latest = expand.includes('payment_intent.latest_charge') ? charges.get(intent.latest_charge) : intent.latest_charge;
    return { ...view, payment_intent: { ...intent, latest_charge: latest } };
  }

  /** What the hosted page's "Pay" does; `async: true` leaves an asynchronous payment method unpaid. */
  function pay(sessionId: string, buyer: { email?: string; async?: boolean } = {}): FakeSession {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`fake Stripe: no session ${sessionId}`);
    const email = buyer.email ?? 'buyer@example.com';
    session.status = 'complete';
    session.customer = session.customer ?? newId('cus');
    session.customer_details = { email };
    if (buyer.async) return session;
    settle(session);
    return session;
  }

  /** An asynchronous payment that succeeded (checkout.session.async_payment_succeeded follows). */
  function settle(session: FakeSession) {
    const charge: FakeCharge = {
      id: newId('ch'),
      object: 'charge',
      amount: session.amount_total,
      amount_refunded: 0,
      currency: session.currency,
      payment_intent: newId('pi'),
      receipt_url: '',
      refunded: false,
    };
    charge.receipt_url = `${base}/receipts/${charge.id}`;
    charges.set(charge.id, charge);
    intents.set(charge.payment_intent, {
      id: charge.payment_intent,
      object: 'payment_intent',
      latest_charge: charge.id,
      amount: charge.amount,
      status: 'succeeded',
    });
    session.payment_intent = charge.payment_intent;
    session.payment_status = 'paid';
  }

  function chargeOf(sessionId: string): FakeCharge {
    const session = sessions.get(sessionId);
    const intent = session?.payment_intent ? intents.get(session.payment_intent) : undefined;
    if (!intent) throw new Error(`fake Stripe: session ${sessionId} has no charge`);
    return charges.get(intent.latest_charge)!;
  }

  /** A signed delivery of an event; `timestamp` (seconds) back-dates or forward-dates the signature. */
  function signed(type: string, object: unknown, eventId = newId('evt'), timestamp?: number): SignedDelivery {
    const event = {
      id: eventId,
      object: 'event',
      api_version: '2026-01-28.clover',
      created: Math.floor(Date.now() / 1000),
      type,
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      data: { object },
    } as unknown as Stripe.Event;
    const payload = JSON.stringify(event);
    const secret = options.webhookSecret ?? 'whsec_fake';
    return { payload, header: Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }), event };
  }

  const events = {
    completed: (sessionId: string, eventId?: string) => signed('checkout.session.completed', sessions.get(sessionId), eventId),
    asyncSucceeded: (sessionId: string) => {
      settle(sessions.get(sessionId)!);
      return signed('checkout.session.async_payment_succeeded', sessions.get(sessionId));
    },
    /** The session expired unpaid (checkout.session.expired). */
    expired: (sessionId: string) => {
      const session = sessions.get(sessionId)!;
      session.status = 'expired';
      return signed('checkout.session.expired', { ...session, line_items: undefined });
    },
    /** Refunds `amount` (default: all that is left) of the session's charge. */
    refunded: (sessionId: string, amount?: number) => {
      const charge = chargeOf(sessionId);
      charge.amount_refunded = Math.min(charge.amount, charge.amount_refunded + (amount ?? charge.amount));
      charge.refunded = charge.amount_refunded === charge.amount;
      return signed('charge.refunded', { ...charge });
    },
    disputeCreated: (sessionId: string) => {
      const charge = chargeOf(sessionId);
      return signed('charge.dispute.created', {
        id: newId('dp'),
        object: 'dispute',
        amount: charge.amount,
        charge: charge.id,
        payment_intent: charge.payment_intent,
        reason: 'fraudulent',
        status: 'needs_response',
      });
    },
  };

  async function deliver(delivery: SignedDelivery, url = options.webhookUrl): Promise<number> {
    if (!url) throw new Error('fake Stripe: no webhook URL to deliver to');
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': delivery.header },
      body: delivery.payload,
    });
    await response.arrayBuffer();
    deliveries.push({ type: delivery.event.type, status: response.status });
    return response.status;
  }

  function send(response: ServerResponse, status: number, body: unknown) {
    response.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': newId('req') });
    response.end(JSON.stringify(body));
  }

  const missing = (response: ServerResponse, what: string) =>
    send(response, 404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}` } });

  function checkoutPage(session: FakeSession): string {
    const name = at(session.line_items, '0', 'price_data', 'product_data', 'name') ?? 'Purchase';
    const amount = (session.amount_total / 100).toFixed(2);
    return `<!doctype html><html lang="en"><head><title>Fake Stripe Checkout</title></head><body>
<main><h1>Pay ${escapeHtml(name)}</h1><p data-testid="amount">${amount} ${session.currency.toUpperCase()}</p>
<form method="post" action="/checkout/${session.id}/pay"><label>Email <input name="email" type="email" value="buyer@example.com"></label>
<label><input name="later" type="checkbox"> Pay by a method confirmed later</label>
<button type="submit">Pay</button></form></main></body></html>`;
  }

  async function handleBrowser(request: IncomingMessage, response: ServerResponse, path: string, body: string) {
    const [, kind, id, action] = path.split('/');
    const session = kind === 'checkout' && id ? sessions.get(id) : undefined;
    if (kind === 'checkout' && session && request.method === 'GET') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return response.end(checkoutPage(session));
    }
    if (kind === 'checkout' && session && action === 'pay' && request.method === 'POST') {
      const form = new URLSearchParams(body);
      // "Confirmed later" is an asynchronous method (a bank debit): completed but unpaid until
      // the test delivers events.asyncSucceeded.
      pay(session.id, { email: form.get('email') ?? undefined, async: form.has('later') });
      // As Stripe: the event is delivered on its own, not before the redirect.
      if (options.webhookUrl) void deliver(events.completed(session.id)).catch(() => undefined);
      response.writeHead(303, { Location: session.success_url.replace('{CHECKOUT_SESSION_ID}', session.id) });
      return response.end();
    }
    const charge = kind === 'receipts' && id ? charges.get(id) : undefined;
    if (charge) {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return response.end(
        `<!doctype html><html lang="en"><head><title>Receipt</title></head><body><h1>Receipt ${charge.id}</h1></body></html>`,
      );
    }
    response.writeHead(404).end();
  }

  function handleApi(request: IncomingMessage, response: ServerResponse, url: URL, body: string) {
    const form = parseStripeForm(request.method === 'GET' ? url.search.slice(1) : body);
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    calls.push({ method: request.method ?? '', path: url.pathname, body: form, idempotencyKey });
    if (!request.headers.authorization?.startsWith('Bearer sk_')) {
      return send(response, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    }
    const expand = Object.values((form.expand ?? {}) as Record<string, string>);
    const [, , resource, sub, id] = url.pathname.split('/');
    if (resource === 'checkout' && sub === 'sessions' && !id && request.method === 'POST') {
      return send(response, 200, sessionView(createSession(form, idempotencyKey), []));
    }
    if (resource === 'checkout' && sub === 'sessions' && id && request.method === 'GET') {
      const session = sessions.get(id);
      return session ? send(response, 200, sessionView(session, expand)) : missing(response, `checkout.session: '${id}'`);
    }
    if (resource === 'payment_intents' && sub)
      return intents.has(sub) ? send(response, 200, intents.get(sub)) : missing(response, 'payment_intent');
    if (resource === 'charges' && sub) return charges.has(sub) ? send(response, 200, charges.get(sub)) : missing(response, 'charge');
    missing(response, `route ${request.method} ${url.pathname}`);
  }

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', base);
    if (url.pathname.startsWith('/v1/')) handleApi(request, response, url, body);
    else await handleBrowser(request, response, url.pathname, body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;

  return {
    /** STRIPE_API_BASE for the product. */
    apiBase: base,
    port,
    sessions,
    charges,
    calls,
    deliveries,
    pay,
    events,
    signed,
    deliver,
    chargeOf,
    /** A Stripe SDK pointed at this fake (its host, port and protocol). */
    client: (secretKey = 'sk_test_fake') => new Stripe(secretKey, { host: '127.0.0.1', port, protocol: 'http' }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
