// What the process started and must stop, last started first: a lower layer (the database, the
// instance's sweeps) registers its stop here instead of being imported by what stops the process.

type Hook = () => Promise<void>;
const hooks: Hook[] = [];
let running: Promise<void> | undefined;
let stopping = false;

/** Called as a stop signal arrives: from then on, connections the stop ends are expected to end. */
export function markStopping(): void {
  stopping = true;
}

export function isStopping(): boolean {
  return stopping;
}

export function onShutdown(hook: Hook): void {
  hooks.push(hook);
}

/**
 * Runs every hook once, last registered first; a failing hook does not stop the others. A second
 * caller (the signal handler and the database's stop both ask) waits for the same run.
 */
export function runShutdownHooks(): Promise<void> {
  return (running ??= (async () => {
    for (const hook of hooks.splice(0).reverse()) await hook().catch(() => {});
  })());
}
