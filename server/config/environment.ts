// The environment beyond the settings of the schema (index.ts): a provider's key lives in a
// variable its operator names (api_key_env), and a child process (ffmpeg) inherits the
// environment. With index.ts, the only reads of process.env in the server.

/** One variable of the environment, read when asked (a provider's api_key_env, the PATH). */
export function environmentVariable(name: string): string | undefined {
  return process.env[name];
}

/** A copy of the whole environment, for a child process to inherit. */
export function environmentCopy(): NodeJS.ProcessEnv {
  return { ...process.env };
}
