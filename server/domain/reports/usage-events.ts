import type { SqlDb } from '../../db/client';
import { Prisma, type PrismaClient, type UsageEvent } from '../../db/generated/client';
import { soldUnitPricesOf } from './margin';
import { likeLiteral } from '../like-literal';
import { isUuid } from '../uuid';
import { clampLimit, keysetPageQuery, toPage } from '../pagination';

export interface UsageFilters {
  apiKeyId?: string;
  /** A key's id, the start of its prefix (wgs_live_…) or part of its label. */
  key?: string;
  request?: string;
  operation?: string;
  outcome?: 'succeeded' | 'failed';
  /** Inclusive lower bound on created_at. */
  from?: Date;
  /** Exclusive upper bound on created_at. */
  to?: Date;
}

type EventWithKey = UsageEvent & { apiKey: { prefix: string; label: string | null } };

export function toUsageView(event: EventWithKey) {
  return {
    id: event.id,
    created_at: event.createdAt.toISOString(),
    api_key_id: event.apiKeyId,
    key_prefix: event.apiKey.prefix,
    key_label: event.apiKey.label,
    operation: event.operation,
    /** The surface the call came through: `v1` or `openai` (/openai/v1). */
    surface: event.surface,
    engine: event.engine,
    /** Every engine called, in order, when the package names fallbacks. */
    engines_tried: event.enginesTried,
    outcome: event.outcome,
    units: event.units,
    error_code: event.errorCode,
    request_id: event.requestId,
    job_id: event.jobId,
    duration_ms: event.durationMs,
    package_version_id: event.packageVersionId,
    /** What the providers reported (docs/billing.md "Provider cost, revenue and margin"). */
    input_tokens: event.inputTokens,
    output_tokens: event.outputTokens,
    cached_input_tokens: event.cachedInputTokens,
    characters: event.characters,
    audio_seconds: event.audioSeconds?.toFixed() ?? null,
    images: event.images,
    image_size: event.imageSize,
    video_seconds: event.videoSeconds?.toFixed() ?? null,
    /** In CURRENCY, at the time of the call; null when unpriced or nothing was reported. */
    provider_cost: event.providerCost?.toFixed() ?? null,
    unpriced: event.unpriced,
    /** The usage (and so the cost) is an estimate: the provider reported none. */
    usage_estimated: event.usageEstimated,
  };
}

export type UsageView = ReturnType<typeof toUsageView>;

/** The keys a free-text key filter names: by id, prefix or label, as the keys list searches. */
export function keyMatch(text: string): Prisma.ApiKeyWhereInput {
  return {
    OR: [
      ...(isUuid(text) ? [{ id: text }] : []),
      { prefix: { startsWith: likeLiteral(text) } },
      { label: { contains: likeLiteral(text), mode: 'insensitive' as const } },
    ],
  };
}

function usageWhere(filters: UsageFilters): Prisma.UsageEventWhereInput {
  return {
    ...(filters.apiKeyId ? { apiKeyId: filters.apiKeyId } : {}),
    ...(filters.key ? { apiKey: keyMatch(filters.key) } : {}),
    ...(filters.request ? { requestId: filters.request } : {}),
    ...(filters.operation ? { operation: filters.operation } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(filters.from || filters.to
      ? { createdAt: { ...(filters.from ? { gte: filters.from } : {}), ...(filters.to ? { lt: filters.to } : {}) } }
      : {}),
  };
}

/** Newest first, keyset-paged on the (api_key_id, created_at) and (created_at) indexes. */
export async function listUsageEvents(
  db: PrismaClient,
  input: UsageFilters & { cursor?: string; limit?: number } = {},
): Promise<{ items: UsageView[]; nextCursor: string | null; prevCursor: string | null }> {
  const limit = clampLimit(input.limit);
  const rows = await db.usageEvent.findMany(keysetPageQuery(usageWhere(input), input.cursor, limit));
  return toPage(rows, limit, toUsageView, input.cursor);
}

export interface UsageTotals {
  requests: number;
  succeeded: number;
  failed: number;
  units: number;
  /** How many keys a free-text key filter matched (null without one). */
  matching_keys: number | null;
}

/** Totals of every event the filters select (not just the page shown). */
export async function usageTotals(db: PrismaClient, filters: UsageFilters): Promise<UsageTotals> {
  const where = usageWhere(filters);
  const [byOutcome, matchingKeys] = await Promise.all([
    db.usageEvent.groupBy({ by: ['outcome'], where, _count: { _all: true }, _sum: { units: true } }),
    filters.key ? db.apiKey.count({ where: keyMatch(filters.key) }) : Promise.resolve(null),
  ]);
  const count = (outcome: string) => byOutcome.find((row) => row.outcome === outcome)?._count._all ?? 0;
  return {
    requests: byOutcome.reduce((sum, row) => sum + row._count._all, 0),
    succeeded: count('succeeded'),
    failed: count('failed'),
    units: byOutcome.reduce((sum, row) => sum + (row._sum.units ?? 0), 0),
    matching_keys: matchingKeys,
  };
}

export const USAGE_CSV_COLUMNS = [
  'id',
  'created_at',
  'api_key_id',
  'key_prefix',
  'operation',
  'engine',
  'outcome',
  'units',
  'error_code',
  'request_id',
  'job_id',
  'duration_ms',
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'characters',
  'audio_seconds',
  'images',
  'image_size',
  'video_seconds',
  'provider_cost',
  'unpriced',
  'usage_estimated',
] as const satisfies readonly (keyof UsageView)[];

/** Money columns after USAGE_CSV_COLUMNS: units × the unit price (the margin report's: what was paid per unit for a key sold through Stripe, else the version's), and revenue − provider cost. */
const MONEY_CSV_COLUMNS = ['revenue', 'margin'] as const;

/**
 * Columns added later, last so that the earlier ones keep their places: the key's label, the surface (`v1`, `openai`)
 * and every engine called, in order, separated by spaces (an engine's name has none; empty when no fallback was named).
 */
const LATER_CSV_COLUMNS = ['key_label', 'surface', 'engines_tried'] as const satisfies readonly (keyof UsageView)[];

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // A number (a negative margin included) is written as it is.
  if (typeof value === 'number' || (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))) return String(value);
  const text = String(value);
  // Quote when needed; a leading formula character is defused so spreadsheets show it as text.
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The filtered events as CSV lines (header first), read page by page so memory stays flat. */
export async function* usageCsvLines(db: PrismaClient, sqlDb: SqlDb, filters: UsageFilters, maxRows = 1_000_000): AsyncGenerator<string> {
  yield `${[...USAGE_CSV_COLUMNS, ...MONEY_CSV_COLUMNS, ...LATER_CSV_COLUMNS].join(',')}\r\n`;
  let cursor: string | undefined;
  let sent = 0;
  const unitPrices = new Map<string, Prisma.Decimal | null>();
  const soldPrices = new Map<string, Prisma.Decimal | null>();
  do {
    const page = await listUsageEvents(db, { ...filters, cursor, limit: 200 });
    const missing = [...new Set(page.items.map((item) => item.package_version_id))].filter((id) => !unitPrices.has(id));
    if (missing.length > 0) {
      const versions = await db.packageVersion.findMany({ where: { id: { in: missing } }, select: { id: true, unitPrice: true } });
      for (const version of versions) unitPrices.set(version.id, version.unitPrice);
    }
    const unseenKeys = [...new Set(page.items.map((item) => item.api_key_id))].filter((id) => !soldPrices.has(id));
    const sold = await soldUnitPricesOf(sqlDb, unseenKeys);
    for (const id of unseenKeys) soldPrices.set(id, sold.has(id) ? new Prisma.Decimal(sold.get(id)!) : null);
    for (const item of page.items) {
      const price = soldPrices.get(item.api_key_id) ?? unitPrices.get(item.package_version_id) ?? null;
      const revenue = price ? price.times(item.units) : null;
      const margin = revenue && !item.unpriced ? revenue.minus(item.provider_cost ?? 0) : null;
      const cells = [
        ...USAGE_CSV_COLUMNS.map((column) => item[column]),
        revenue?.toFixed() ?? null,
        margin?.toFixed() ?? null,
        ...LATER_CSV_COLUMNS.map((column) => (column === 'engines_tried' ? item.engines_tried.join(' ') : item[column])),
      ];
      yield `${cells.map(csvCell).join(',')}\r\n`;
    }
    sent += page.items.length;
    cursor = page.nextCursor ?? undefined;
  } while (cursor && sent < maxRows);
}
