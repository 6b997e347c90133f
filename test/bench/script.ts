// The end of a bench or probe script that starts a mesh: exit once main has finished (handles the
// mesh's clients may leave open do not keep the process alive), 1 with the error printed if it failed.
export function runScript(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
