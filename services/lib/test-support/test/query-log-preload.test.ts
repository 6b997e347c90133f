import { startDatabase, type Database } from '@convo/dev-db';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { QueryLogLine } from '../src/query-log';

// The query log reaches a process only through the preload (as the dev mesh starts its processes
// when QUERY_LOG is set): a process that connects with the kit's connectDatabase and queries
// records the query's shape, and the same process without the preload records nothing. Built
// files in a fresh Node, as the mesh runs them (turbo builds before it tests).

const run = promisify(execFile);
const preload = require.resolve('@convo/test-support/query-log-preload');
// A process of its own: connects as a service does and reads with a filter and a sort.
const script = `
  const { connectDatabase } = require('@convo/kit/mongo');
  (async () => {
    const conn = await connectDatabase(process.argv[1], 'query_log_probe');
    await conn.collection('probes').find({ tenantId: 7, status: { $in: ['a', 'b'] } }).sort({ at: -1 }).limit(5).toArray();
    await conn.close();
  })().catch((err) => { console.error(err); process.exit(1); });`;

let database: Database;
let dir: string;

beforeAll(async () => {
  database = await startDatabase({ name: 'query-log-preload-test' });
  dir = mkdtempSync(join(tmpdir(), 'query-log-'));
});
afterAll(async () => {
  await database?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const probe = async (file: string, nodeArgs: string[]) => {
  await run(process.execPath, [...nodeArgs, '-e', script, database.uri], {
    env: { ...process.env, QUERY_LOG: file },
    timeout: 30_000,
    cwd: __dirname,
  });
  return existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as QueryLogLine)
    : [];
};

it('records the queries of a process started with the preload', async () => {
  const lines = await probe(join(dir, 'with.jsonl'), ['--require', preload]);
  expect(lines).toContainEqual(
    expect.objectContaining({
      t: 'query',
      db: 'query_log_probe',
      collection: 'probes',
      op: 'find',
      filter: {
        fields: [
          { path: 'tenantId', kind: 'eq' },
          { path: 'status', kind: 'in' },
        ],
      },
      sort: [['at', -1]],
      limit: 5,
    }),
  );
});

it('records nothing without it: the kit carries no query log of its own', async () => {
  expect(await probe(join(dir, 'without.jsonl'), [])).toEqual([]);
});
