// The dashboard's time range (URL state): a preset counted back from now, or whole UTC days.

export const RANGE_PRESETS = ['24h', '7d', '14d', '30d'] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];

export interface RangeInput {
  range?: RangePreset | 'custom';
  /** Custom range: first and last UTC day, inclusive (YYYY-MM-DD). */
  from?: string;
  to?: string;
}
