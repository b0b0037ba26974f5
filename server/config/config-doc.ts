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
