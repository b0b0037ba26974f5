// The launcher (scripts/start.ts) and the app it serves (Next's bundle) load separate copies of
// our modules, so what the app starts is stopped through hooks kept on globalThis.

type Hook = () => Promise<void>;
const HOOKS = Symbol.for('wgs.shutdownHooks');
const RUNNING = Symbol.for('wgs.shutdownHooks.running');
const STOPPING = Symbol.for('wgs.stopping');
const registry = globalThis as typeof globalThis & { [HOOKS]?: Hook[]; [RUNNING]?: Promise<void>; [STOPPING]?: boolean };

/** Called as a stop signal arrives: from then on, connections the stop ends are expected to end. */
export function markStopping(): void {
  registry[STOPPING] = true;
}

export function isStopping(): boolean {
  return registry[STOPPING] === true;
}

export function onShutdown(hook: Hook): void {
  (registry[HOOKS] ??= []).push(hook);
}

/**
 * Runs every hook once, last registered first; a failing hook does not stop the others. A second
 * caller (the signal handler and the database's stop both ask) waits for the same run.
 */
export function runShutdownHooks(): Promise<void> {
  return (registry[RUNNING] ??= (async () => {
    const hooks = registry[HOOKS]?.splice(0).reverse() ?? [];
    for (const hook of hooks) await hook().catch(() => {});
  })());
}
