import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

// The package does not export its browser bundle, so it is read from its folder.
const BUNDLE = join(process.cwd(), 'node_modules', '@scalar', 'api-reference', 'dist', 'browser', 'standalone.js');
let script: Buffer | undefined;

export async function GET(): Promise<Response> {
  script ??= await readFile(BUNDLE);
  return new Response(new Uint8Array(script), {
    headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' },
  });
}
