// The start scripts tune glibc's malloc for Node (package.json: MALLOC_ARENA_MAX,
// MALLOC_MMAP_THRESHOLD_), and a child process inherits the environment. PostgreSQL's backends must
// not: a fixed mmap threshold also fixes glibc's trim threshold at its default, so a long-lived
// backend can come to give its heap back and take it again around every statement. In the bench's
// late windows PostgreSQL then took 20–26 page faults per paid call (against 0–3), and its CPU per
// call doubled.

const NODE_MALLOC_SETTINGS = ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'] as const;

/**
 * Runs `start` (which spawns a child with process.env) with the Node-only malloc settings out of
 * the environment, and puts them back after. Node read them when it started; removing them changes
 * nothing for this process.
 */
export async function withoutNodeMallocSettings<T>(start: () => Promise<T>): Promise<T> {
  const saved = NODE_MALLOC_SETTINGS.map((name) => [name, process.env[name]] as const);
  for (const [name] of saved) delete process.env[name];
  try {
    return await start();
  } finally {
    for (const [name, value] of saved) if (value !== undefined) process.env[name] = value;
  }
}
