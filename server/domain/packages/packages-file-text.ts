import { extname } from 'node:path';
import { findDuplicateMember } from '../../contract/duplicate-members';

// A packages file's text as the CLI's `packages apply` and SEED_PACKAGES_FILE read it: JSON, or YAML
// when its name ends in .yaml or .yml (docs/packages-file.md), strictly either way.

/** The file's value; throws an Error whose message says what is wrong, naming `file`. */
export async function parsePackagesText(text: string, file: string): Promise<unknown> {
  const yaml = ['.yaml', '.yml'].includes(extname(file).toLowerCase());
  let parsed: unknown;
  try {
    parsed = yaml ? strictYaml((await import('yaml')).parseDocument, text) : JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(error as Error).message}`);
  }
  // JSON.parse keeps the last of a repeated member silently (YAML refuses it): which value was
  // meant cannot be told, so the file is refused, as a request body would be.
  const repeated = yaml ? undefined : findDuplicateMember(text);
  if (repeated !== undefined) throw new Error(`${file} is not valid JSON: the member "${repeated}" appears twice in one object`);
  return parsed;
}

/**
 * YAML as its parser reads it, but a warning refuses it too: a tag it cannot resolve
 * (`!!js/function`) was dropped with a warning on stderr, and the text under it applied.
 */
function strictYaml(parseDocument: typeof import('yaml').parseDocument, text: string): unknown {
  const document = parseDocument(text);
  const problem = document.errors[0] ?? document.warnings[0];
  if (problem) throw problem;
  return document.toJS();
}
