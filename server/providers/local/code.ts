import type { CodeTask } from '../engine';
import { keyTerms, truncate } from './text-analysis';

// The offline code engine: static reading only. It never runs, evaluates or imports the
// supplied content; it reports what it can see and returns a labelled, deterministic draft.

// Every pattern below runs in time linear in the input (a request may send 64,000 characters of
// anything): a line-start pattern matches blanks with [ \t], never \s (which would rescan every
// following line break from each line start), and no two neighbouring quantifiers take the same
// characters (`\w+.*`, `\s+\w*\s*`), which would try every split of a long run.
const LANGUAGE_HINTS: [string, (input: string) => boolean][] = [
  ['typescript', (input) => /\b(interface|type)\s+\w+\s*[={<]|:\s*(string|number|boolean)\b/.test(input)],
  ['python', (input) => /^[ \t]*(?:def|class)[ \t]+\w[^\n]*:[ \t]*$|^[ \t]*import[ \t]+\w+$/m.test(input)],
  ['go', (input) => /^[ \t]*func[ \t]+(?:\w+[ \t]*)?\(|^package[ \t]+\w+/m.test(input)],
  ['rust', (input) => /\bfn\s+\w+\s*\(|\blet\s+mut\b/.test(input)],
  ['java', (input) => /\bpublic\s+(static\s+)?(class|void|int)\b/.test(input)],
  [
    'sql',
    (input) => {
      const statement = input.search(/\b(?:SELECT|INSERT|UPDATE|DELETE)\b/i);
      return statement !== -1 && /\b(?:FROM|INTO|SET)\b/i.test(input.slice(statement));
    },
  ],
  ['javascript', (input) => /\b(function\s+\w+|const\s+\w+\s*=|=>)/.test(input)],
];

const DEFINITION =
  /\b(?:function|def|func|fn|class|interface|type)\s+([A-Za-z_][A-Za-z0-9_]*)|\bconst\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:async\s*)?\(/g;

const COMMENT: Record<string, string> = { python: '#', sql: '--' };

function detectLanguage(task: CodeTask): string {
  if (task.language) return task.language;
  return LANGUAGE_HINTS.find(([, seen]) => seen(task.input))?.[0] ?? 'text';
}

/** The line without the spaces and tabs it ends with (a scan from its end: `/[ \t]+$/` retries every start of a long run). */
function withoutTrailingBlanks(line: string): string {
  let end = line.length;
  while (end > 0 && (line[end - 1] === ' ' || line[end - 1] === '\t')) end--;
  return line.slice(0, end);
}

export function generateLocalCode(task: CodeTask): { code: string; explanation: string } {
  const language = detectLanguage(task);
  const comment = COMMENT[language.toLowerCase()] ?? '//';
  const lines = task.input.split('\n');
  const definitions = [...task.input.matchAll(DEFINITION)].map((m) => m[1] ?? m[2]).filter(Boolean) as string[];
  const looksLikeCode = definitions.length > 0 || /[{};]\s*$/m.test(task.input);
  const header = [
    `${comment} Draft by the local engine (offline, deterministic; nothing was executed).`,
    ...(task.requirements.length
      ? [`${comment} Requirements to check:`, ...task.requirements.map((r, i) => `${comment}   ${i + 1}. ${truncate(r, 200)}`)]
      : []),
  ];
  const body = looksLikeCode
    ? lines.map(withoutTrailingBlanks).join('\n').trimEnd()
    : `${comment} Task from the request: ${truncate(task.input.replace(/\s+/g, ' '), 300)}`;
  const findings = [
    `Read ${lines.length} line(s) as ${language}${task.language ? ' (as hinted)' : ' (guessed from syntax)'}.`,
    definitions.length
      ? `Definitions found: ${[...new Set(definitions)].slice(0, 12).join(', ')}.`
      : 'No function or type definitions found.',
    `Key terms: ${keyTerms(task.input).join(', ') || '(none)'}.`,
    task.requirements.length ? `${task.requirements.length} requirement(s) listed at the top of the draft as a checklist.` : '',
    'The local engine only reads the supplied content; it does not run it or model its behaviour. Use a provider engine for real generation.',
  ].filter(Boolean);
  return { code: `${header.join('\n')}\n${body}\n`, explanation: findings.join(' ') };
}
