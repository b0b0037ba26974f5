import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packagesFileSchema } from '@/server/contract/package-schema';
import { GENERATED_PAGES, formatMarkdown } from '@/scripts/docs/generated-pages';
import {
  CROSS_FIELD_RULES,
  exampleFile,
  packagesFileSchemaJson,
  renderPackagesFileReference,
} from '@/scripts/docs/packages-file-reference';
import { renderCliReference } from '@/scripts/docs/cli-reference';
import { program } from '@/scripts/cli';
import type { Command } from 'commander';

describe('generated reference pages', () => {
  for (const page of GENERATED_PAGES) {
    it(`${page.path.split('/').slice(-2).join('/')} is what its source renders (run npm run docs:generate)`, async () => {
      expect(readFileSync(page.path, 'utf8')).toBe(await formatMarkdown(page.render()));
    });
  }

  it('docs/packages-file.md names every field of the schema', () => {
    const page = renderPackagesFileReference();
    const names = new Set<string>();
    const walk = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      for (const name of Object.keys(properties ?? {})) names.add(name);
      Object.values(node).forEach(walk);
    };
    walk(packagesFileSchemaJson());
    expect(names.size).toBeGreaterThan(20);
    for (const name of names) expect(page).toMatch(new RegExp(`\`([a-z_.]+\\.)?${name.replaceAll('.', '\\.')}\``));
  });

  it('docs/cli.md names every command and option commander knows, subcommands of subcommands too (keys webhook set)', () => {
    const page = renderCliReference();
    const check = (command: Command, path: string[]) => {
      expect(page).toContain(`### \`${path.join(' ')}\``);
      for (const option of command.options) expect(page).toContain(`\`${option.flags}\``);
      for (const sub of command.commands) check(sub, [...path, sub.name()]);
    };
    for (const group of program.commands) for (const command of group.commands) check(command, [group.name(), command.name()]);
    expect(page).toContain('### `keys webhook set`');
  });
});

describe('the cross-field rules docs/packages-file.md lists', () => {
  it('the example they break is a valid file', () => {
    expect(packagesFileSchema.safeParse(exampleFile()).success).toBe(true);
  });
  for (const { rule, breaking, message } of CROSS_FIELD_RULES) {
    it(`the schema holds: ${rule}`, () => {
      const file = exampleFile();
      breaking(file);
      const result = packagesFileSchema.safeParse(file);
      expect(result.success).toBe(false);
      expect(result.error!.issues.map((issue) => issue.message).join('\n')).toContain(message);
    });
  }
});
