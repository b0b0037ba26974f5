import type { PackageDefinition } from './package-schema';

// Cost caps (docs/providers.md): a text or code operation without `max_output_tokens` lets every
// call ask for the provider's own maximum at the same units. Allowed, but said out loud wherever
// a package is written (the CLI's apply, the dashboard's package form): a notice, not an error.

export const OUTPUT_CAPPED_OPERATIONS = ['text.generate', 'code.generate'] as const;

/** The one line said of an operation sold without an output cap. */
export function outputCapNotice(operation: (typeof OUTPUT_CAPPED_OPERATIONS)[number]): string {
  return `${operation} has no output cap (max_output_tokens unset): each call may ask for the provider's own maximum`;
}

/** One notice per text or code operation of the package that sets no `max_output_tokens` and may call a provider (not `local` only). */
export function outputCapNotices(definition: Pick<PackageDefinition, 'slug' | 'operations'>): string[] {
  return OUTPUT_CAPPED_OPERATIONS.flatMap((operation) => {
    const settings = definition.operations[operation];
    if (!settings || settings.max_output_tokens !== undefined) return [];
    if ([settings.engine].flat().every((engine) => engine === 'local')) return [];
    return [`package ${definition.slug}: ${outputCapNotice(operation)}`];
  });
}
