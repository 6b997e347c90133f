// globalSetup of the e2e suite: a fresh query log and database error log for this run. process.env
// set here is inherited by jest's workers and, through startMesh, by every process of every mesh;
// each appends to the files with O_APPEND writes of whole lines, so parallel test files and
// processes never interleave.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { databaseErrorsFile } from '../support/database-errors-file';
import { queryLogFile } from '../support/query-log-file';
import { prepareSharedMesh } from '../support/shared-mesh-run';

export default function setup(): void {
  const file = queryLogFile();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '');
  process.env.QUERY_LOG = file;
  // The meshes' embedded databases (dev-db) append FerretDB's unexpected errors here.
  const errors = databaseErrorsFile();
  mkdirSync(dirname(errors), { recursive: true });
  writeFileSync(errors, '');
  process.env.DEV_DB_ERROR_LOG = errors;
  // No gateway warm-up before ready (up to 12 s of two cores at every mesh start): the tests send
  // their own requests, not a load a cold gateway would serve slowly. The chaos test turns it on.
  process.env.WARMUP_MS ??= '0';
  // The shared mesh's folder (support/shared-mesh.ts): the first test file that asks starts it.
  prepareSharedMesh();
}
