import type { z } from 'zod';

// The one place where schema issues become sentences an operator reads: each names the field by
// its label and says what is allowed. The schemas stay those of the domain (the packages file's,
// the procedures'); only the words differ.

const number = new Intl.NumberFormat('en-US');
const n = (value: number | bigint) => number.format(value);

/** The sub-schema at a path (through optional, default and nullable wrappers), to read its bounds. */
export function schemaAt(schema: z.ZodType | undefined, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current = schema;
  for (const part of [...path, null]) {
    while (current) {
      const def = (current as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def;
      if (!['optional', 'default', 'nullable', 'prefault'].includes(def.type) || !def.innerType) break;
      current = def.innerType;
    }
    if (part === null || !current) break;
    const def = (
      current as unknown as {
        _zod: { def: { type: string; shape?: Record<string, z.ZodType>; element?: z.ZodType; valueType?: z.ZodType } };
      }
    )._zod.def;
    if (def.type === 'object') current = def.shape?.[String(part)];
    else if (def.type === 'array') current = def.element;
    else current = def.type === 'record' ? def.valueType : undefined; // a provider's prices by model
  }
  return current;
}

/** A schema's own sentence ("slug must be ..."), its subject replaced by the field's label. */
function ownWords(label: string, message: string): string {
  return /^[\w.]+ must /.test(message) ? message.replace(/^[\w.]+ must /, `${label} must `) : `${label}: ${message}`;
}

/** "must be a whole number from 1 to 1,000,000", from the schema's own bounds. */
function numberRule(schema: z.ZodType | undefined): string | null {
  const bounds = schema as unknown as
    { minValue?: number | null; maxValue?: number | null; isInt?: boolean; _zod?: { def?: { type?: string } } } | undefined;
  if (bounds?._zod?.def?.type !== 'number') return null;
  const kind = bounds.isInt ? 'a whole number' : 'a number';
  const min = bounds.minValue !== null && bounds.minValue !== undefined && Number.isFinite(bounds.minValue) ? bounds.minValue : null;
  const max =
    bounds.maxValue !== null &&
    bounds.maxValue !== undefined &&
    Number.isFinite(bounds.maxValue) &&
    bounds.maxValue < Number.MAX_SAFE_INTEGER
      ? bounds.maxValue
      : null;
  if (min !== null && max !== null) return `must be ${kind} from ${n(min)} to ${n(max)}`;
  if (min !== null) return `must be ${kind} of at least ${n(min)}`;
  if (max !== null) return `must be ${kind} of at most ${n(max)}`;
  return `must be ${kind}`;
}

/** A zod issue in plain words, for the field labelled `label` (its schema gives both bounds of a number). */
export function plainMessage(label: string, issue: z.core.$ZodIssue, value?: unknown, schema?: z.ZodType): string {
  if (value === undefined || value === '' || (issue.code === 'invalid_type' && value === null)) {
    return `${label} is required`;
  }
  const rule = numberRule(schema);
  if (rule && ['too_small', 'too_big', 'invalid_type', 'not_multiple_of'].includes(issue.code)) return `${label} ${rule}`;
  switch (issue.code) {
    case 'too_small':
    case 'too_big': {
      const bounds = issue as unknown as { origin: string; minimum?: number | bigint; maximum?: number | bigint };
      if (bounds.origin === 'number' || bounds.origin === 'int') return `${label} ${wholeRange(issue, label)}`;
      if (bounds.origin === 'string') {
        return issue.code === 'too_small' && Number(bounds.minimum) <= 1
          ? `${label} is required`
          : `${label} must be ${lengthRange(issue)} characters`;
      }
      if (bounds.origin === 'array') {
        return issue.code === 'too_small'
          ? `${label} needs at least ${n(Number(bounds.minimum))} value${Number(bounds.minimum) === 1 ? '' : 's'}`
          : `${label} takes at most ${n(Number(bounds.maximum))} values`;
      }
      return `${label} is out of range`;
    }
    case 'invalid_type':
      if ((issue as { expected: string }).expected === 'int') return `${label} must be a whole number`;
      return (issue as { expected: string }).expected === 'number' ? `${label} must be a number` : `${label} has the wrong kind of value`;
    case 'invalid_value':
      return `${label} must be one of ${(issue as { values: unknown[] }).values.map(String).join(', ')}`;
    case 'invalid_format':
      if ((issue as { format: string }).format === 'date') return `${label} must be a day written YYYY-MM-DD`;
      return issue.message.startsWith('Invalid') ? `${label} is not in the expected form` : ownWords(label, issue.message);
    case 'unrecognized_keys':
      return `${label}: unknown setting ${(issue as { keys: string[] }).keys.join(', ')}`;
    default:
      // Custom refinements already speak plainly ("entries must be unique", "slug must be ...").
      return ownWords(label, issue.message);
  }
}

/** "must be a whole number from 1 to 1,000,000" from the schema's own bounds. */
function wholeRange(issue: z.core.$ZodIssue, _label: string): string {
  const bounds = issue as unknown as { minimum?: number; maximum?: number; inclusive?: boolean };
  // zod reports one bound per issue; the hint map below fills the other where the schema has it.
  if (issue.code === 'too_small') return `must be ${bounds.inclusive === false ? 'more than' : 'at least'} ${n(Number(bounds.minimum))}`;
  return `must be ${bounds.inclusive === false ? 'less than' : 'at most'} ${n(Number(bounds.maximum))}`;
}

function lengthRange(issue: z.core.$ZodIssue): string {
  const bounds = issue as unknown as { minimum?: number; maximum?: number };
  return issue.code === 'too_small' ? `at least ${n(Number(bounds.minimum))}` : `at most ${n(Number(bounds.maximum))}`;
}

/** Dotted path of an issue, as the server reports it too. */
export const issuePath = (issue: { path: readonly PropertyKey[] }) => issue.path.map(String).join('.');

/**
 * Field errors from a failed parse: one message per dotted path (the first issue of each),
 * labelled by `labelFor`, read against the input to tell a missing value from a wrong one.
 */
export function fieldErrors(
  error: z.ZodError,
  input: unknown,
  labelFor: (path: string) => string,
  schema?: z.ZodType,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const path = issuePath(issue);
    if (errors[path]) continue;
    errors[path] = plainMessage(labelFor(path), issue, valueAt(input, issue.path), schemaAt(schema, issue.path));
  }
  return errors;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}
