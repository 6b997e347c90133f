// globalSetup of the e2e suite: a fresh query log for this run. process.env set here is inherited
// by jest's workers and, through startMesh, by every process of every mesh; each appends to the
// file with O_APPEND writes of whole lines, so parallel test files and processes never interleave.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { queryLogFile } from '../support/query-log-file';

export default function setup(): void {
  const file = queryLogFile();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '');
  process.env.QUERY_LOG = file;
}
