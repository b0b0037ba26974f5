/**
 * As next-auth judges a callback URL before anything else: a path, or an absolute http(s) URL.
 * next-auth answers a request carrying any other (as a query or form field, or in its
 * callback-url cookie) with a 500, so such values are refused or dropped before it sees them.
 */
export function isParseableCallbackUrl(value: string): boolean {
  try {
    return value.startsWith('/') || /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}
