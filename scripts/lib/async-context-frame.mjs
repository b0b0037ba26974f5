// Node 22's AsyncLocalStorage, once any store is in use (Next's are, from the first page it
// serves), runs a hook on every promise the process makes, for every store: 12-20% of a paid
// call's server CPU, measured in pairs (docs/performance.md). AsyncContextFrame carries the stores
// without hooks. It is Node 24's default, and Node 22's behind --experimental-async-context-frame,
// a flag Node 24 refuses; so on Node 22 the start replaces itself with the flag added (execve:
// the same process, pid and stdio), before it does anything else.

const FLAG = '--experimental-async-context-frame';

/**
 * The command line to run instead (node and its arguments), or undefined to go on as is: on
 * Node 22 with process.execve (22.15 and later) and neither the flag nor its `--no-` form on the
 * command line or in NODE_OPTIONS.
 */
export function withAsyncContextFrame({ version, execPath, execArgv, argv, nodeOptions, canExec }) {
  if (!version.startsWith('v22.') || !canExec) return undefined;
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)];
  if (given.includes(FLAG) || given.includes(FLAG.replace('--', '--no-'))) return undefined;
  return [execPath, FLAG, ...execArgv, ...argv.slice(1)];
}

/** Replaces this process with itself under AsyncContextFrame when withAsyncContextFrame says so. */
export function restartWithAsyncContextFrame() {
  const command = withAsyncContextFrame({
    version: process.version,
    execPath: process.execPath,
    execArgv: process.execArgv,
    argv: process.argv,
    nodeOptions: process.env.NODE_OPTIONS,
    canExec: typeof process.execve === 'function',
  });
  if (command) process.execve(process.execPath, command);
}
