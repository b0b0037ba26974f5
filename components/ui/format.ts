// Formatting shared by server and client components. Deterministic (UTC, en-US) so the server's
// HTML and the browser's hydration always agree.
import { OPERATION_NAMES, SURFACE_PATHS, type Operation, type SurfaceName } from '@/server/contract/values';

const numberFormat = new Intl.NumberFormat('en-US');

/** The path a call came through (`/v1`, `/openai/v1`) from its surface's name. */
export const surfacePath = (surface: string) => SURFACE_PATHS[surface as SurfaceName] ?? surface;

/** An operation in words ("Text generation"); its id where it has none. */
export const operationName = (operation: string) => OPERATION_NAMES[operation as Operation] ?? operation;

export const formatNumber = (value: number) => numberFormat.format(value);

/** Every decimal a package's terms may hold (up to 10), where formatNumber rounds to 3. */
const exactNumberFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 10 });
export const formatExactNumber = (value: number) => exactNumberFormat.format(value);

/** The digits of `currency`'s minor unit (USD 2, JPY 0, KWD 3), looked up once per currency (a table formats many amounts). */
const minorDigitsOf = new Map<string, number>();
function minorDigits(currency: string): number {
  let digits = minorDigitsOf.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    minorDigitsOf.set(currency, digits);
  }
  return digits;
}

/**
 * A decimal amount (margin report) in `currency`: to its minor unit (the cent; none for JPY, a
 * thousandth for KWD), except a non-zero amount under one, given two significant digits ($0.0012),
 * since provider costs of one call are often that small.
 */
export function formatMoney(value: string, currency: string): string {
  const amount = Number(value);
  const minor = minorDigits(currency);
  const digits =
    amount !== 0 && Math.abs(amount) < 10 ** -minor
      ? { maximumSignificantDigits: 2 }
      : { minimumFractionDigits: minor, maximumFractionDigits: minor };
  return new Intl.NumberFormat('en-US', { style: 'currency', currency, ...digits }).format(amount);
}

/** A price a package sets (its unit price, a daily budget) in `currency`: every decimal it has, never rounded. */
export function formatPriceTerm(value: string, currency: string): string {
  const format = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: minorDigits(currency),
    maximumFractionDigits: 10,
  });
  return format.format(value as Intl.StringNumericLiteral);
}

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  return `${value.slice(0, 10)} ${value.slice(11, 19)} UTC`;
}

/** The last UTC day a key expiring at `expiresAt` works (it expires at the start of the next). */
export const lastDay = (expiresAt: string) => new Date(Date.parse(expiresAt) - 1).toISOString().slice(0, 10);

/** A key's expiry as the form asked for it: "works through" its last UTC day when it ends at midnight, else the instant. */
export function formatExpiry(expiresAt: string | null | undefined): string {
  if (!expiresAt) return 'never';
  return expiresAt.slice(11, 23) === '00:00:00.000' ? `works through ${lastDay(expiresAt)} UTC` : `at ${formatDate(expiresAt)}`;
}

export const formatPercent = (ratio: number) => `${(ratio * 100).toFixed(ratio > 0 && ratio < 0.001 ? 2 : 1)}%`;

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** `text` cut to at most `length` UTF-16 units and marked with …, never inside a surrogate pair (an emoji). */
/** A message shown as a sentence: a field's may begin in lower case ("the webhook URL must be …"). */
export const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A count with its noun: "1 call", "2 calls". */
export const counted = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

export function truncated(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = /[\uD800-\uDBFF]/.test(text.charAt(length - 1)) ? length - 1 : length;
  return `${text.slice(0, cut)}…`;
}

/** First value of a search param, or undefined; restricted to allowed values when given. */
export function param<T extends string>(
  params: Record<string, string | string[] | undefined>,
  name: string,
  allowed?: readonly T[],
): T | undefined {
  const raw = params[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  // U+0000 cannot be stored or searched for in PostgreSQL (the query would fail): no such filter.
  if (!value || value.includes('\u0000')) return undefined;
  if (allowed && !allowed.includes(value as T)) return undefined;
  return value as T;
}

export type SearchParams = Promise<Record<string, string | string[] | undefined>>;
