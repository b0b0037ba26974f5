import type pg from 'pg';

// A pg client whose connection is lost between queries (a database restart) emits 'error'; with no
// listener that is an uncaught exception. Every client this server opens listens: its next query
// fails instead (and a pool drops the client when it is released).

export function listenForErrors(client: pg.ClientBase): void {
  client.on('error', () => {});
}
