import { PROVIDER_TYPE_INFO, isProviderType, type SettingLimits } from '../../contract/provider-types';
import type { Operation } from '../operations';
import type { ValidationIssue as Issue } from '../errors';
import { engineNamesOf } from '../engine-names';
import type { PackageDefinition } from '../../contract/package-schema';

// A package may only name, for an operation, an engine whose provider type can serve it, with
// settings that provider can honour. Judged when the packages file is applied, so a customer
// never meets a provider that cannot do what the package sold.
// It sits with the providers, below the packages, because a provider's save asks it too.

type OperationSettings = {
  engine: string | readonly string[];
  voices?: readonly string[];
  languages?: readonly string[];
  output_formats?: readonly string[];
  timestamps?: readonly string[];
  input_uploads?: boolean;
};

/** What an operation's settings ask that a provider with these limits cannot honour (field, why). */
function unhonouredSettings(settings: OperationSettings, limits: SettingLimits): { field: string; why: string }[] {
  const problems: { field: string; why: string }[] = [];
  if (limits.speechFormats) {
    const asked = settings.output_formats ?? ['mp3', 'wav'];
    const missing = asked.filter((format) => !(limits.speechFormats as readonly string[]).includes(format));
    if (missing.length > 0) {
      problems.push({
        field: 'output_formats',
        why: `it produces only ${limits.speechFormats.join(', ')} (set output_formats to a subset)`,
      });
    }
  }
  if (limits.voices === false && settings.voices) problems.push({ field: 'voices', why: 'its voice is part of the model id' });
  if (limits.languages === false && settings.languages)
    problems.push({ field: 'languages', why: 'it takes no language for this operation' });
  if (limits.segments === false && (settings.timestamps ?? ['none', 'segment']).includes('segment')) {
    problems.push({ field: 'timestamps', why: 'it returns no timed segments (set timestamps to ["none"])' });
  }
  if (limits.inputUploads === false && settings.input_uploads) problems.push({ field: 'input_uploads', why: 'it takes no input upload' });
  return problems;
}

/**
 * One issue per engine of a package that names a provider whose type cannot do the operation,
 * or cannot honour one of its settings. `providerTypes` maps every known provider to its type.
 */
export function engineCapabilityIssues(definition: PackageDefinition, index: number, providerTypes: ReadonlyMap<string, string>): Issue[] {
  const issues: Issue[] = [];
  for (const [operation, raw] of Object.entries(definition.operations)) {
    if (!raw) continue;
    const settings = raw as OperationSettings;
    const names = engineNamesOf(settings.engine);
    names.forEach((engineName, position) => {
      if (engineName === 'local') return;
      const provider = engineName.slice(0, engineName.indexOf(':'));
      const type = providerTypes.get(provider);
      if (type === undefined) return; // an unknown provider is reported by its own check
      const field = `packages.${index}.operations.${operation}.engine${typeof settings.engine === 'string' ? '' : `.${position}`}`;
      if (!isProviderType(type)) {
        issues.push({
          path: field,
          code: 'unsupported_operation',
          message: `provider "${provider}" has type "${type}", which this version does not know`,
        });
        return;
      }
      const info = PROVIDER_TYPE_INFO[type];
      if (!info.operations.includes(operation as Operation)) {
        issues.push({
          path: field,
          code: 'unsupported_operation',
          message: `provider "${provider}" is of type "${type}", which cannot do ${operation}; it can do ${info.operations.join(', ')}`,
        });
        return;
      }
      for (const problem of unhonouredSettings(settings, info.limits[operation as Operation] ?? {})) {
        const path = `packages.${index}.operations.${operation}.${problem.field}`;
        issues.push({
          path,
          code: 'unsupported_setting',
          message: `provider "${provider}" (type "${type}") cannot honour it: ${problem.why}`,
        });
      }
    });
  }
  return issues;
}

/** The one line an operator reads first: the first issue with its field. */
export function capabilitySummary(issues: readonly Issue[]): string {
  const first = issues[0]!;
  return `${first.path}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`;
}
