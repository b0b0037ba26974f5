/** Polls until `probe` returns a value; generous deadline, no assertion on how long it took. */
export async function pollUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await probe();
    if (last !== undefined) return last as T;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}
