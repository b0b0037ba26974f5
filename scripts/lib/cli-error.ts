// How the operator CLI reports a refused command on stderr: each problem once.

export interface CliIssue {
  path: string;
  message: string;
}

/**
 * The error's lines. A summary of its own ("The packages file is invalid.") heads the list of
 * issues; a message that is only the first issue's ("email must be an e-mail address") is not
 * printed again above it: each issue then gets its own `error:` line.
 */
export function errorText(message: string, issues: readonly CliIssue[]): string {
  // Every issue names its field: zod's messages start with the path, others need it added.
  const lines = issues.map((issue) =>
    issue.path && !issue.message.includes(issue.path) ? `${issue.path}: ${issue.message}` : issue.message,
  );
  if (lines.length === 0) return `error: ${message}\n`;
  if (issues.some((issue) => issue.message === message)) return lines.map((line) => `error: ${line}\n`).join('');
  return `error: ${message}\n${lines.map((line) => `  - ${line}\n`).join('')}`;
}

/** An unexpected error's message, without the name of the Prisma call it came through ("Invalid `….findMany()` invocation:"). */
export function plainMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^\s*Invalid `[^`]*` invocation[^:]*:\s*/, '').trim();
}
