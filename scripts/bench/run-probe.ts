// How every in-process probe ends: the process exits once `main` settles (the server modules it
// imported keep timers and pools open), with 1 and the error printed when it failed.

export function runProbe(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
