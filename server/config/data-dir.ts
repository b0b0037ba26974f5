import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// The data dir (WGS_DATA_DIR) made where it is missing, a level at a time: Node's recursive
// mkdirSync spins for ever on a parent that exists but refuses a new entry with ENOENT (`/proc/x`:
// `npm start` hung at full CPU, saying nothing), where one level at a time fails at once.

/** Makes `dataDir` and its missing parents; an error names the setting and the directory it could not make. */
export function makeDataDir(dataDir: string): void {
  const missing: string[] = [];
  for (let at = dataDir; !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const directory of missing) {
    try {
      mkdirSync(directory);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // made meanwhile by another process
      throw new Error(`WGS_DATA_DIR: cannot create ${directory} (${code ?? String(error)}); set it to a directory this user may write`);
    }
  }
}
