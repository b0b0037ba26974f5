import type { z } from 'zod';

// The descriptions and shapes of the settings (server/config/config-settings.ts), from which
// docs/configuration.md is generated.

/** Where a setting matters: the one-process `npm start` (embedded PostgreSQL), the production shape, the test suite. */
export type ConfigShape = 'embedded' | 'production' | 'tests';

/** What docs/configuration.md says of a setting: generated from these (npm run docs:config). */
export interface SettingDoc {
  description: string;
  shapes: ConfigShape[];
  /** Read where it is used (by a library or a module outside this file); listed here so the reference is complete. */
  readElsewhere?: boolean;
}

export const ALL: ConfigShape[] = ['embedded', 'production', 'tests'];
export const PRODUCTION: ConfigShape[] = ['production'];
export const RUNNING: ConfigShape[] = ['embedded', 'production'];

export const settingDocs = new WeakMap<z.ZodType, SettingDoc>();
/** Gives a setting its description and shapes, so the schema is the one source of both. */
export function doc<T extends z.ZodType>(schema: T, description: string, shapes: ConfigShape[] = ALL, readElsewhere = false): T {
  settingDocs.set(schema, { description, shapes, ...(readElsewhere ? { readElsewhere } : {}) });
  return schema;
}

/** The schema under its default, optional and similar wrappers. */
export function innerSchema(schema: unknown): InnerSchema {
  let current = schema as { _zod?: { def?: { innerType?: unknown } } };
  while (current._zod?.def?.innerType) current = current._zod.def.innerType as typeof current;
  return current as InnerSchema;
}

/** What the configuration reference and the number check read of a setting's innermost schema. */
export interface InnerSchema {
  _zod?: { def?: { type?: string; checks?: { _zod: { def: SchemaCheck } }[] } };
}

/** One check of a zod schema, as zod 4 describes it. */
export interface SchemaCheck {
  check: string;
  value?: number;
  inclusive?: boolean;
  minimum?: number;
  format?: string;
}
