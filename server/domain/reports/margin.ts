import sql, { raw, type Sql } from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { Prisma } from '../../db/generated/client';
import { plannedEachRun } from '../../db/named-statement';
import { getConfig } from '../../config';
import { stripeExponent } from '../../contract/stripe-currency';
import { bucketStarts, type TimeRange } from './time-range';

// Does each package make money? Revenue (units charged × the unit price of the event's package
// version, or, for a key sold through Stripe, what was actually paid per unit bought), provider cost (stored on each event at the time of the call), and their margin, over
// a time range. Money is summed in SQL numeric and returned as decimal strings, never floats. The
// cost of calls whose provider reported no usage is an estimate, counted apart too (`estimated`).
// See docs/billing.md "Provider cost, revenue and margin".

export interface MarginFigures {
  requests: number;
  /** Units charged × unit price, succeeded calls. */
  revenue: string;
  /** Provider cost of succeeded calls. */
  cost: string;
  /** Provider cost of failed calls (the operator pays for those too), shown apart. */
  failed_cost: string;
  /** revenue − cost − failed_cost. */
  margin: string;
  /** margin / revenue × 100; null without revenue. */
  margin_pct: number | null;
  /** Calls whose provider cost is unknown (no price for their model, or usage that could not be estimated): not in cost. */
  unpriced: number;
  /** Calls whose provider usage, so their cost, is an estimate (the provider reported none: docs/billing.md). */
  estimated: number;
  /** The part of cost and failed_cost that is estimated. */
  estimated_cost: string;
  /** Calls sold at a package version with no unit_price: not in revenue. */
  no_unit_price: number;
}

export interface MarginScope {
  range: TimeRange;
  packageSlug?: string;
  apiKeyId?: string;
}

/** COUNTs (bigint) and numeric sums, as pg hands them over: decimal strings. */
interface Row {
  requests: string;
  revenue: string | null;
  cost: string | null;
  failed_cost: string | null;
  unpriced: string;
  estimated: string;
  estimated_cost: string | null;
  no_unit_price: string;
}

/**
 * What a unit of a key sold through Stripe Checkout actually brought in: what was paid for it
 * (package and top-ups, less refunds) over the units bought, in CURRENCY; joined as `s`.
 */
function soldUnitPrices(): Sql {
  const currency = getConfig().CURRENCY;
  const scale = 10 ** stripeExponent(currency);
  return sql`LEFT JOIN (
    SELECT api_key_id, SUM(COALESCE(amount_paid, 0) - amount_refunded)::numeric / ${scale}::numeric / NULLIF(SUM(units), 0) AS unit_price
      FROM purchases WHERE status = 'fulfilled' AND api_key_id IS NOT NULL AND currency = ${currency}
     GROUP BY api_key_id
  ) s ON s.api_key_id = e.api_key_id`;
}

/** What a unit of each of the keys named brought in, for those sold through Stripe Checkout (soldUnitPrices), as decimal text. */
export async function soldUnitPricesOf(db: SqlDb, apiKeyIds: readonly string[]): Promise<Map<string, string>> {
  if (apiKeyIds.length === 0) return new Map();
  const { rows } = await db.pool.query<{ api_key_id: string; unit_price: string }>(
    sql`SELECT e.api_key_id, s.unit_price FROM unnest(${apiKeyIds}::uuid[]) AS e(api_key_id) ${soldUnitPrices()} WHERE s.unit_price IS NOT NULL`,
  );
  return new Map(rows.map((row) => [row.api_key_id, row.unit_price]));
}

/** The aggregates every grouping selects; `e` is usage_events, `v` its package version, `s` its key's paid unit price. */
const FIGURES = sql`COUNT(*) AS requests,
  COALESCE(SUM(e.units * COALESCE(s.unit_price, v.unit_price)) FILTER (WHERE e.outcome = 'succeeded'), 0) AS revenue,
  COALESCE(SUM(e.provider_cost) FILTER (WHERE e.outcome = 'succeeded'), 0) AS cost,
  COALESCE(SUM(e.provider_cost) FILTER (WHERE e.outcome = 'failed'), 0) AS failed_cost,
  COUNT(*) FILTER (WHERE e.unpriced) AS unpriced,
  COUNT(*) FILTER (WHERE e.usage_estimated) AS estimated,
  COALESCE(SUM(e.provider_cost) FILTER (WHERE e.usage_estimated), 0) AS estimated_cost,
  COUNT(*) FILTER (WHERE e.outcome = 'succeeded' AND e.units > 0 AND COALESCE(s.unit_price, v.unit_price) IS NULL) AS no_unit_price`;

function figures(row: Row | undefined): MarginFigures {
  const revenue = new Prisma.Decimal(row?.revenue ?? 0);
  const cost = new Prisma.Decimal(row?.cost ?? 0);
  const failedCost = new Prisma.Decimal(row?.failed_cost ?? 0);
  const margin = revenue.minus(cost).minus(failedCost);
  return {
    requests: Number(row?.requests ?? 0),
    revenue: revenue.toFixed(),
    cost: cost.toFixed(),
    failed_cost: failedCost.toFixed(),
    margin: margin.toFixed(),
    margin_pct: revenue.isZero() ? null : margin.div(revenue).times(100).toDecimalPlaces(2).toNumber(),
    unpriced: Number(row?.unpriced ?? 0),
    estimated: Number(row?.estimated ?? 0),
    estimated_cost: new Prisma.Decimal(row?.estimated_cost ?? 0).toFixed(),
    no_unit_price: Number(row?.no_unit_price ?? 0),
  };
}

function where(scope: MarginScope): Sql {
  const pkg = scope.packageSlug ?? null;
  const key = scope.apiKeyId ?? null;
  return sql`e.created_at >= ${scope.range.from} AND e.created_at < ${scope.range.to}
    AND (${key}::uuid IS NULL OR e.api_key_id = ${key}::uuid)
    AND (${pkg}::text IS NULL OR v.package_id = (SELECT id FROM packages WHERE slug = ${pkg}::text))`;
}

export interface MarginReport {
  totals: MarginFigures;
  /** Per operation; `loss`: its provider cost exceeded its revenue in the range. */
  by_operation: (MarginFigures & { operation: string; loss: boolean })[];
  /** Per UTC day (or hour, for ranges of two days or less), every bucket of the range. */
  by_bucket: (MarginFigures & { at: string })[];
}

const isLoss = (f: MarginFigures) => new Prisma.Decimal(f.margin).isNegative();

/** Revenue, cost and margin of the range: in total, by operation and by day, for everything, a package or a key. */
export async function marginReport(db: SqlDb, scope: MarginScope): Promise<MarginReport> {
  // The bucket's unit is one of two fixed words, written into the SQL (not a parameter) so the
  // grouping expressions are the same text in SELECT, GROUPING and GROUP BY: two statements.
  const unit = scope.range.bucket === 'hour' ? 'hour' : 'day';
  const bucket = raw(`date_trunc('${unit}', e.created_at AT TIME ZONE 'UTC')`);
  const { rows } = await db.pool.query<Row & { operation: string | null; at: Date | null; grouping: number }>(
    plannedEachRun(sql`SELECT e.operation, ${bucket} AT TIME ZONE 'UTC' AS at, GROUPING(e.operation, ${bucket})::int AS grouping, ${FIGURES}
            FROM usage_events e JOIN package_versions v ON v.id = e.package_version_id ${soldUnitPrices()}
           WHERE ${where(scope)}
           GROUP BY GROUPING SETS ((e.operation), (${bucket}), ())`),
  );
  // GROUPING bits: 1 = the bucket is rolled up (a per-operation row), 2 = the operation is (a per-bucket row), 3 = total.
  const total = rows.find((row) => row.grouping === 3);
  const byBucket = new Map(rows.filter((row) => row.grouping === 2).map((row) => [row.at!.toISOString(), row]));
  return {
    totals: figures(total),
    by_operation: rows
      .filter((row) => row.grouping === 1)
      .map((row) => ({ operation: row.operation!, ...figures(row) }))
      .map((row) => ({ ...row, loss: isLoss(row) }))
      .sort((a, b) => a.operation.localeCompare(b.operation)),
    by_bucket: bucketStarts(scope.range).map((start) => ({ at: start.toISOString(), ...figures(byBucket.get(start.toISOString())) })),
  };
}

export type MarginSort = 'margin_desc' | 'margin_asc';

/** Each package's figures in the range (packages with traffic), sorted by margin. */
export async function marginByPackage(
  db: SqlDb,
  scope: MarginScope,
  sort: MarginSort = 'margin_asc',
): Promise<(MarginFigures & { slug: string; name: string; loss: boolean })[]> {
  const { rows } = await db.pool.query<Row & { slug: string; name: string }>(
    plannedEachRun(sql`SELECT p.slug, p.name, ${FIGURES}
            FROM usage_events e JOIN package_versions v ON v.id = e.package_version_id JOIN packages p ON p.id = v.package_id
            ${soldUnitPrices()}
           WHERE ${where(scope)}
           GROUP BY p.slug, p.name`),
  );
  return sortByMargin(
    rows.map((row) => ({ slug: row.slug, name: row.name, ...figures(row) })),
    sort,
  );
}

/** Each key's figures in the range (keys with traffic), sorted by margin. */
export async function marginByKey(
  db: SqlDb,
  scope: MarginScope,
  sort: MarginSort = 'margin_asc',
): Promise<(MarginFigures & { id: string; prefix: string; label: string | null; package_slug: string; loss: boolean })[]> {
  const { rows } = await db.pool.query<Row & { id: string; prefix: string; label: string | null; package_slug: string }>(
    plannedEachRun(sql`SELECT k.id, k.prefix, k.label, p.slug AS package_slug, ${FIGURES}
            FROM usage_events e JOIN package_versions v ON v.id = e.package_version_id
            JOIN api_keys k ON k.id = e.api_key_id JOIN packages p ON p.id = v.package_id ${soldUnitPrices()}
           WHERE ${where(scope)}
           GROUP BY k.id, k.prefix, k.label, p.slug`),
  );
  return sortByMargin(
    rows.map(({ id, prefix, label, package_slug, ...row }) => ({ id, prefix, label, package_slug, ...figures(row) })),
    sort,
  );
}

function sortByMargin<T extends MarginFigures>(rows: T[], sort: MarginSort): (T & { loss: boolean })[] {
  const sign = sort === 'margin_asc' ? 1 : -1;
  return rows
    .map((row) => ({ ...row, loss: isLoss(row) }))
    .sort((a, b) => sign * new Prisma.Decimal(a.margin).comparedTo(new Prisma.Decimal(b.margin)));
}
