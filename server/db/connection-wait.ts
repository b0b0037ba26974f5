// How long anything waits for a database connection (or a free one from a pool) before it fails
// closed: a database that accepts the connection and never answers (a stopped server, a silent
// port) is an error after this, never a command or a start that hangs without a word.
export const CONNECTION_WAIT_MS = 10_000;
