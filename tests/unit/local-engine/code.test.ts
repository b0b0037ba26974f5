import { describe, expect, it } from 'vitest';
import { generateLocalCode } from '@/server/providers/local/code';

// The local code engine reads whatever a request sends (up to 64,000 characters). Its patterns
// are linear in the input: inputs that made the old ones retry from every position (a run of line
// breaks, of blanks, a long word after `def`) held the server's one thread for 3 to 11 s each
// (outside audit). Each is answered here well within a second, and answered right.

const LIMIT = 64_000;
/** Not a speed measure: a bound on a hang, some 200 times what each input takes (0.4 to 10.5 s before). */
const HANG = 1_000;
const draft = (input: string, language?: string) => generateLocalCode({ input, language, requirements: [] });

describe('the local code engine', () => {
  it('guesses the language from syntax, and keeps code without its trailing blanks', () => {
    expect(draft('def total(items):\n    return sum(items)   \n').explanation).toContain('as python (guessed from syntax)');
    expect(draft('def total(items):\n    return sum(items)   \n').code).toContain('    return sum(items)\n');
    expect(draft('package main\n\nfunc main() {}\n').explanation).toContain('as go');
    expect(draft('func (s *Server) Run() {}').explanation).toContain('as go');
    expect(draft('SELECT id\n  FROM users;').explanation).toContain('as sql');
    expect(draft('UPDATE users SET name = 1;').explanation).toContain('as sql');
    expect(draft('FROM a SELECT b').explanation).not.toContain('as sql');
    expect(draft('interface User { id: string }').explanation).toContain('as typescript');
    expect(draft('const add = (a, b) => a + b;').explanation).toContain('as javascript');
    expect(draft('please add two numbers').code).toContain('// Task from the request: please add two numbers');
  });

  it.each([
    ['line breaks', `${'\n'.repeat(LIMIT - 1)}x`],
    ['a brace, then blanks', `{\n${' '.repeat(LIMIT - 3)}x`],
    ['a colon, then line breaks', `:${'\n'.repeat(LIMIT - 1)}`],
    ['a long name after def', `def ${'a'.repeat(LIMIT - 4)}`],
    ['blanks after func', `func${' '.repeat(LIMIT - 4)}`],
    ['statements without a clause', 'SELECT '.repeat(LIMIT / 7)],
  ])(
    'answers 64,000 characters of %s at once',
    (_, input) => {
      const { code, explanation } = draft(input);
      expect(explanation).toMatch(/^Read \d+ line\(s\)/);
      expect(code.endsWith('\n')).toBe(true);
    },
    HANG,
  );
});
