import type { z } from 'zod';
import type { ValidationIssue } from './errors';

/** zod issues as the envelope's `details.issues`: dotted path, stable code, readable message. */
export function formatZodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      const fields = issue.keys.map((key) => (path ? `${path}.${key}` : key));
      return {
        path: fields[0] ?? path,
        code: 'unknown_field',
        message: `Unknown field${fields.length > 1 ? 's' : ''}: ${fields.join(', ')}.`,
      };
    }
    const code =
      issue.code === 'invalid_type' && issue.input === undefined
        ? 'required'
        : issue.code === 'custom'
          ? ((issue.params?.code as string | undefined) ?? 'invalid')
          : issue.code;
    return { path, code, message: path ? `${path}: ${issue.message}` : issue.message };
  });
}
