// Sharding readiness of the e2e suite's queries (run after it, like coverage.test.ts): every query
// to a collection that deploy/mongodb/shard-keys.json shards pins the first field of its shard key,
// or is listed there with its reason; every queried collection is declared. The rule's own cases
// run first, on shapes made up here.
import { existsSync, readFileSync } from 'node:fs';
import type { QueryLogLine } from '../support/index-coverage';
import { queryLogFile } from '../support/query-log-file';
import { checkShardKeys, readShardKeys, shardedCollections, unusedScatter, type ShardKeys } from '../support/shard-keys';

const query = (collection: string, op: string, fields: Array<[string, string]>, or?: Array<Array<[string, string]>>): QueryLogLine =>
  ({
    t: 'query',
    source: 'test',
    db: 'convo_x',
    collection,
    op,
    filter: {
      fields: fields.map(([path, kind]) => ({ path, kind })),
      ...(or && { or: or.map((b) => ({ fields: b.map(([path, kind]) => ({ path, kind })) })) }),
    },
    sort: [],
  }) as unknown as QueryLogLine;

describe('the shard key rule', () => {
  const keys: ShardKeys = {
    convo_x: {
      messages: { key: { tenantId: 1, ticketId: 1 }, why: 'grows', scatter: { 'find {status: eq}': 'the queue read' } },
      plans: { key: null, why: 'small' },
    },
  };
  it('passes queries that pin the first field (equality or $in, on every $or branch), listed scatters and unsharded collections', () => {
    const ok = [
      query('messages', 'find', [
        ['tenantId', 'eq'],
        ['status', 'eq'],
      ]),
      query('messages', 'update', [['tenantId', 'in']]),
      query(
        'messages',
        'find',
        [],
        [
          [['tenantId', 'eq']],
          [
            ['tenantId', 'eq'],
            ['body', 'regex'],
          ],
        ],
      ),
      query('messages', 'find', [['status', 'eq']]),
      query('plans', 'find', []),
    ];
    expect(checkShardKeys(ok, keys).findings).toEqual([]);
  });
  it('fails a scatter-gather on a sharded collection, and an undeclared collection', () => {
    const bad = [
      query('messages', 'update', [['_id', 'eq']]),
      query('messages', 'find', [['tenantId', 'range']]),
      query('messages', 'find', [], [[['tenantId', 'eq']], [['body', 'regex']]]),
      query('tickets', 'find', [['tenantId', 'eq']]),
    ];
    const { findings } = checkShardKeys(bad, keys);
    expect(findings.map((f) => `${f.collection} ${f.shape}`)).toEqual([
      'convo_x.messages update {_id: eq}',
      'convo_x.messages find {tenantId: range}',
      'convo_x.messages find {$or: [{tenantId: eq}, {body: regex}]}',
      'convo_x.tickets find {tenantId: eq}',
    ]);
    expect(findings[3].reason).toMatch(/no shard key declared/);
  });
});

describe('sharding readiness of the e2e suite', () => {
  const file = queryLogFile();
  it('sends no unlisted scatter-gather query to a sharded collection', () => {
    if (!existsSync(file)) throw new Error(`No query log at ${file}: run the e2e suite first (npx jest in test/, which records it).`);
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as QueryLogLine);
    const keys = readShardKeys();
    const { shapes, findings } = checkShardKeys(lines, keys);
    expect(shapes).toBeGreaterThan(0);
    const stale = unusedScatter(lines, keys);
    console.log(
      `${shapes} query shapes; sharded: ${shardedCollections(keys).length} collections${stale.length ? `; listed scatters this run did not meet: ${stale.join('; ')}` : ''}`,
    );
    if (findings.length) {
      throw new Error(
        `${findings.length} of ${shapes} query shapes in ${file} do not follow deploy/mongodb/shard-keys.json:\n\n` +
          findings.map((f, i) => `${i + 1}. ${f.collection} ${f.shape}\n   from ${f.sources.join(', ')}\n   why: ${f.reason}`).join('\n\n'),
      );
    }
  });
});
