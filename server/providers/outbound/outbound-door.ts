import dns, { type LookupAddress } from 'node:dns';
import { isIP, type Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { addressClass, type AddressClass } from './address-class';

// The doors every request made on a provider's or a webhook's behalf goes through (API calls,
// form uploads, redirect hops, media downloads, webhook deliveries): undici Agents whose
// `connect` judges the address each connection actually reaches. Names are resolved inside the
// connection (the lookup net.connect uses), every answer is judged, and the connected socket's
// remote address is judged again, so there is no gap between a check and the connection for DNS
// rebinding to use. Metadata and link-local addresses are never connected to; private ones only
// where the door's own allowance says so. Each purpose has its own door and allowance (and its
// own pool of connections): a provider's private origin is no webhook's (provider-door.ts,
// server/domain/webhooks/webhook-door.ts).

/** A call refused before it was sent: its URL, a redirect or a connection leads where no call may go. */
export class RefusedDestinationError extends Error {
  readonly code = 'EREFUSEDDESTINATION';
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestinationError';
  }
}

/**
 * The refusal of `host` (what the URL names) for an address of `kind`. It never names the
 * address a name resolved to: refusals are stored and shown to customers, and DNS answers of
 * this network are not theirs to read.
 */
export function refusedHost(host: string, kind: Exclude<AddressClass, 'public'>): RefusedDestinationError {
  const never = kind === 'metadata' ? ' that is never reached (link-local or cloud metadata)' : '';
  return new RefusedDestinationError(`refused: ${host} is a private or reserved address${never}`);
}

/** Why a connection to `address` (for `host`) is refused, or undefined when it may be made. */
export function addressRefusal(address: string, host: string, allowPrivate: boolean): RefusedDestinationError | undefined {
  const kind = addressClass(address);
  if (kind === 'metadata' || (kind === 'private' && !allowPrivate)) return refusedHost(host, kind);
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** DNS as net.connect asks it, but a name with any refused answer is not connected to at all. */
function judgedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error || addresses.length === 0) {
        const failure = error ?? Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
        return callback(failure, options.all ? [] : '');
      }
      for (const entry of addresses) {
        const refusal = addressRefusal(entry.address, hostname, allowPrivate);
        if (refusal) return callback(refusal, options.all ? [] : '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const connectors = {
  private: buildConnector({ lookup: judgedLookup(true) as never }),
  public: buildConnector({ lookup: judgedLookup(false) as never }),
};

type ConnectOptions = Parameters<buildConnector.connector>[0];
type ConnectCallback = Parameters<buildConnector.connector>[1];

/** A connector that lets a private address be reached only where `privateAllowedAt(origin)` says so. */
function judgedConnect(privateAllowedAt: (origin: string) => boolean) {
  return (options: ConnectOptions, callback: ConnectCallback): void => {
    const origin = `${options.protocol}//${options.host ?? options.hostname}`;
    const allowPrivate = privateAllowedAt(origin);
    const host = options.hostname.replace(/^\[|\]$/g, '');
    // An address in the URL is never looked up: judged here, before anything is sent to it.
    const literal = isIP(host) !== 0 ? addressRefusal(host, host, allowPrivate) : undefined;
    if (literal) return callback(literal, null);
    (allowPrivate ? connectors.private : connectors.public)(options, (error, socket) => {
      if (error || !socket) return callback(error ?? new Error('no socket'), null);
      // What the socket is connected to, whatever resolved it: the last word.
      const remote = (socket as Socket).remoteAddress;
      const refusal =
        remote === undefined ? new RefusedDestinationError('refused: no remote address') : addressRefusal(remote, host, allowPrivate);
      if (!refusal) return callback(null, socket);
      socket.destroy();
      callback(refusal, null);
    });
  };
}

/** A door of its own: an Agent whose connections reach a private address only where `privateAllowedAt` allows it. */
export function openOutboundDoor(privateAllowedAt: (origin: string) => boolean): Agent {
  return new Agent({ keepAliveTimeout: 30_000, connections: 256, connect: judgedConnect(privateAllowedAt) });
}

/** The door's refusal behind an error thrown by undici or its fetch (`fetch failed` with a cause), if any. */
export function refusalIn(error: unknown): RefusedDestinationError | undefined {
  for (let cause = error, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (cause instanceof RefusedDestinationError) return cause;
  }
  return undefined;
}
