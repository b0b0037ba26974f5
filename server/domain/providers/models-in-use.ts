import sql from 'sql-template-tag';
import type { SqlDb } from '../../db/client';
import { prepared } from '../../db/named-statement';

// The model ids the package versions already name, per provider (newest first): the
// suggestions of the engine picker and the model a provider test uses when none is typed.
// Listing a provider's own catalogue would cost a call per page view; these cost one query.

interface EngineRow {
  engine: string;
}

export async function modelsInUse(db: SqlDb): Promise<Map<string, string[]>> {
  const { rows } = await db.pool.query<EngineRow>(
    prepared(
      'wgs-provider-models-in-use',
      sql`SELECT e.engine
            FROM package_versions v
            CROSS JOIN LATERAL jsonb_each(v.operations) AS o(operation, settings)
            CROSS JOIN LATERAL jsonb_array_elements_text(
              CASE jsonb_typeof(o.settings -> 'engine') WHEN 'array' THEN o.settings -> 'engine' ELSE jsonb_build_array(o.settings -> 'engine') END
            ) AS e(engine)
           WHERE jsonb_typeof(o.settings) = 'object' AND e.engine LIKE '%:%'
           GROUP BY e.engine
           ORDER BY max(v.created_at) DESC, e.engine`,
    ),
  );
  const models = new Map<string, string[]>();
  for (const { engine } of rows) {
    const separator = engine.indexOf(':');
    const provider = engine.slice(0, separator);
    models.set(provider, [...(models.get(provider) ?? []), engine.slice(separator + 1)]);
  }
  return models;
}
