import type { CodeTask } from '../engine';
import { keyTerms, truncate } from './text-analysis';

// The offline code engine: static reading only. It never runs, evaluates or imports the
// supplied content; it reports what it can see and returns a labelled, deterministic draft.

const LANGUAGE_HINTS: [string, RegExp][] = [
  ['typescript', /\b(interface|type)\s+\w+\s*[={<]|:\s*(string|number|boolean)\b/],
  ['python', /^\s*(def|class)\s+\w+.*:\s*$|^\s*import\s+\w+$/m],
  ['go', /^\s*func\s+\w*\s*\(|^package\s+\w+/m],
  ['rust', /\bfn\s+\w+\s*\(|\blet\s+mut\b/],
  ['java', /\bpublic\s+(static\s+)?(class|void|int)\b/],
  ['sql', /\b(SELECT|INSERT|UPDATE|DELETE)\b[\s\S]*\b(FROM|INTO|SET)\b/i],
  ['javascript', /\b(function\s+\w+|const\s+\w+\s*=|=>)/],
];

const DEFINITION =
  /\b(?:function|def|func|fn|class|interface|type)\s+([A-Za-z_][A-Za-z0-9_]*)|\bconst\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:async\s*)?\(/g;

const COMMENT: Record<string, string> = { python: '#', sql: '--' };

function detectLanguage(task: CodeTask): string {
  if (task.language) return task.language;
  return LANGUAGE_HINTS.find(([, pattern]) => pattern.test(task.input))?.[0] ?? 'text';
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
    ? task.input.replace(/[ \t]+$/gm, '').trimEnd()
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
