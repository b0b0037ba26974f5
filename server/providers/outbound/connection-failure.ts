import { refusalIn } from './outbound-door';

// A failed outgoing request in words that can be stored and shown to a customer: the door's
// refusal as it is (it names the host, never an address), anything else by its error code. The
// error's own text is never used: Node's and undici's name the address a name resolved to
// ("connect ECONNREFUSED 10.1.2.3:443"), and DNS answers of this network are not the customer's.

const WORDS: Record<string, string> = {
  ENOTFOUND: 'its name was not found in DNS',
  EAI_AGAIN: 'its name could not be resolved (DNS did not answer)',
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_SOCKET: 'the connection was closed before an answer',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'no answer in time',
};

/** The error's code, on it or on one of its causes (undici wraps socket errors). */
function codeOf(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z0-9_]{2,64}$/.test(code)) return code;
  }
  return undefined;
}

/** Why a request to `host` (the URL's host and port) failed, without any address it resolved to. */
export function describeConnectionFailure(error: unknown, host: string): string {
  const refusal = refusalIn(error);
  if (refusal) return refusal.message;
  const code = codeOf(error);
  if (code === undefined) return `could not deliver to ${host}`;
  const words =
    WORDS[code] ?? (/CERT|TLS|SSL|SELF_SIGNED|SIGNATURE/.test(code) ? 'its TLS certificate was not accepted' : 'the request failed');
  return `could not deliver to ${host}: ${words} (${code})`;
}
