import { ensureFerretDb, resetDatabase, startDatabase } from './index';
import { findOnPath, isExecutable } from './paths';

const USAGE = `Usage: node dist/cli.js <command>
  build        build FerretDB into <repo>/.cache/ferretdb/bin (needs Go) and print its path
  serve [DIR]  start a database, print MONGODB_URI=<uri>, and run until Ctrl-C;
               with DIR, its data is kept there across runs
  reset DIR    delete the data kept in DIR (its PostgreSQL database, its SQLite files)`;

const log = (line: string) => console.error(line);

async function build(): Promise<number> {
  const binary = await ensureFerretDb(log);
  if (binary) {
    console.log(`FerretDB: ${binary}`);
    return 0;
  }
  const existing = existingFerretDb();
  if (existing) {
    console.log(`Go is not installed; using the existing FerretDB at ${existing}`);
    return 0;
  }
  if (process.env.MONGODB_URI) {
    console.log('Go is not installed, so FerretDB was not built; MONGODB_URI is set and will be used instead.');
    return 0;
  }
  console.error(
    'Cannot build FerretDB: `go` is not on PATH, and MONGODB_URI is not set.\n' +
      'Install Go (https://go.dev/dl/) and rerun, or set MONGODB_URI to a running MongoDB.',
  );
  return 1;
}

function existingFerretDb(): string | null {
  const configured = process.env.FERRETDB_BIN;
  if (configured && isExecutable(configured)) return configured;
  return findOnPath('ferretdb');
}

async function serve(dataDir: string | undefined): Promise<number> {
  const db = await startDatabase({ name: 'serve', log, dataDir });
  console.log(`MONGODB_URI=${db.uri}`);
  log(`(${db.kind}; Ctrl-C to stop)`);
  // The database handle deliberately keeps nothing alive, so hold the process open here.
  const keepAlive = setInterval(() => {}, 1 << 30);
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  log(`${signal}: stopping the database`);
  clearInterval(keepAlive);
  await db.stop();
  return 0;
}

async function reset(dataDir: string | undefined): Promise<number> {
  if (!dataDir) {
    console.error(USAGE);
    return 1;
  }
  await resetDatabase(dataDir, { log });
  return 0;
}

async function main(command: string | undefined, arg: string | undefined): Promise<number> {
  if (command === 'build') return build();
  if (command === 'serve') return serve(arg);
  if (command === 'reset') return reset(arg);
  console.error(USAGE);
  return command ? 1 : 0;
}

main(process.argv[2], process.argv[3]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
