import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let script: Buffer | undefined;

export async function GET(): Promise<Response> {
  script ??= await readFile(require.resolve('@scalar/api-reference/dist/browser/standalone.js'));
  return new Response(new Uint8Array(script), {
    headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' },
  });
}
