// The ESR rule on hand-made shapes: what it must accept and what it must flag.
import {
  checkCoverage,
  formatFindings,
  indexServes,
  judgeQuery,
  type FieldKind,
  type IndexShape,
  type QueryLogLine,
  type QueryShape,
} from '../support/index-coverage';

const db = 'convo_x';
const collection = 'things';

const q = (fields: Record<string, FieldKind>, sort: Array<[string, 1 | -1]> = [], extra: Partial<QueryShape> = {}): QueryShape => ({
  db,
  collection,
  op: 'find',
  filter: { fields: Object.entries(fields).map(([path, kind]) => ({ path, kind })) },
  sort,
  ...extra,
});

const ix = (key: Record<string, number | string>, extra: Partial<IndexShape> = {}): IndexShape => ({
  db,
  collection,
  name: Object.entries(key)
    .map(([f, d]) => `${f}_${d}`)
    .join('_'),
  key: Object.entries(key),
  ...extra,
});

const served = (query: QueryShape, indexes: IndexShape[]) => judgeQuery(query, indexes, {}, {}).served;

describe('ESR rule: served', () => {
  it('by the primary key, whatever else the filter says', () => {
    expect(served(q({ _id: 'eq', tenantId: 'eq', status: 'ne' }), [])).toBe(true);
    expect(served(q({ _id: 'in' }), [])).toBe(true);
  });

  it('equality fields in any order, then the sort, then a range', () => {
    const index = ix({ tenantId: 1, ticketId: 1, createdAt: 1, _id: 1 });
    expect(served(q({ ticketId: 'eq', tenantId: 'eq' }), [index])).toBe(true);
    expect(
      served(
        q({ tenantId: 'eq', ticketId: 'eq' }, [
          ['createdAt', 1],
          ['_id', 1],
        ]),
        [index],
      ),
    ).toBe(true);
    expect(
      served(
        q({ tenantId: 'eq', ticketId: 'eq', createdAt: 'range' }, [
          ['createdAt', -1],
          ['_id', -1],
        ]),
        [index],
      ),
    ).toBe(true);
    expect(served(q({ tenantId: 'eq' }), [index])).toBe(true);
  });

  it('a reversed sort walks the index backwards', () => {
    expect(
      served(
        q({ tenantId: 'eq' }, [
          ['updatedAt', 1],
          ['_id', 1],
        ]),
        [ix({ tenantId: 1, updatedAt: -1, _id: -1 })],
      ),
    ).toBe(true);
  });

  it('$in is equality when there is no sort', () => {
    expect(served(q({ tenantId: 'eq', status: 'in', queueId: 'eq' }), [ix({ tenantId: 1, status: 1, queueId: 1 })])).toBe(true);
  });

  it('$in with a sort is a range: fine after the sort, or as a residual filter', () => {
    expect(served(q({ tenantId: 'eq', status: 'in' }, [['updatedAt', -1]]), [ix({ tenantId: 1, updatedAt: -1 })])).toBe(true);
    expect(served(q({ tenantId: 'eq', status: 'in' }, [['updatedAt', -1]]), [ix({ tenantId: 1, updatedAt: -1, status: 1 })])).toBe(true);
  });

  it('$regex, $ne and $exists after an indexed equality prefix only filter', () => {
    expect(served(q({ tenantId: 'eq', name: 'regex', deletedAt: 'exists', kind: 'ne' }), [ix({ tenantId: 1, _id: 1 })])).toBe(true);
  });

  it('a range alone on the first key of an index', () => {
    expect(served(q({ finishedAt: 'range' }), [ix({ finishedAt: 1 })])).toBe(true);
    expect(served(q({ createdAt: 'range' }, [['createdAt', 1]]), [ix({ createdAt: 1 })])).toBe(true);
  });

  it('sorting on a field pinned by equality costs nothing', () => {
    expect(
      served(
        q({ tenantId: 'eq', status: 'eq' }, [
          ['status', 1],
          ['updatedAt', -1],
        ]),
        [ix({ tenantId: 1, updatedAt: -1 })],
      ),
    ).toBe(false);
    expect(
      served(
        q({ tenantId: 'eq', status: 'eq' }, [
          ['status', 1],
          ['updatedAt', -1],
        ]),
        [ix({ tenantId: 1, status: 1, updatedAt: -1 })],
      ),
    ).toBe(true);
  });

  it('a unique index matched whole by equality is a point lookup', () => {
    expect(served(q({ email: 'eq', tenantId: 'eq' }), [ix({ email: 1 }, { unique: true })])).toBe(true);
  });

  it('an $or whose every branch is served', () => {
    const query: QueryShape = {
      ...q({ tenantId: 'eq' }),
      filter: {
        fields: [{ path: 'tenantId', kind: 'eq' }],
        or: [{ fields: [{ path: 'a', kind: 'eq' }] }, { fields: [{ path: 'b', kind: 'range' }] }],
      },
    };
    expect(served(query, [ix({ tenantId: 1, a: 1 }), ix({ tenantId: 1, b: 1 })])).toBe(true);
    // the ANDed part alone narrows to an index range; the $or filters within it
    expect(served(query, [ix({ tenantId: 1, _id: 1 })])).toBe(true);
  });

  it('an empty filter only on a whitelisted small collection, for a bare count, for the first N documents, or as the first N in index order', () => {
    const all = q({});
    expect(judgeQuery(all, [], { [`${db}.${collection}`]: 'tiny' }, {}).served).toBe(true);
    expect(served({ ...all, op: 'count' }, [])).toBe(true);
    expect(served(q({}, [], { limit: 1 }), [])).toBe(true);
    expect(served(q({}, [], { op: 'delete', multi: false }), [])).toBe(true);
    expect(served(q({}, [['createdAt', -1]], { limit: 20 }), [ix({ createdAt: 1 })])).toBe(true);
  });

  it('anything on a whitelisted small collection', () => {
    expect(judgeQuery(q({ seenAt: 'range' }, [], { op: 'delete', multi: true }), [], { [`${db}.${collection}`]: 'tiny' }, {}).served).toBe(
      true,
    );
  });

  it('a scan accepted explicitly, for that filter only', () => {
    const accepted = { [`${db}.${collection} {name: regex}`]: 'substring search over a registry' };
    expect(judgeQuery(q({ name: 'regex' }, [['_id', 1]], { limit: 20 }), [], {}, accepted)).toEqual({
      served: true,
      by: expect.stringContaining('accepted scan'),
    });
    expect(judgeQuery(q({ name: 'regex', kind: 'regex' }), [], {}, accepted).served).toBe(false);
  });
});

describe('ESR rule: not served', () => {
  it('a filter on an unindexed field is a collection scan', () => {
    const v = judgeQuery(q({ providerMessageId: 'eq' }), [ix({ tenantId: 1, ticketId: 1 })], {}, {});
    expect(v).toEqual({ served: false, reason: expect.stringContaining('collection scan') });
  });

  it('an index whose first key the query does not bound', () => {
    expect(served(q({ ticketId: 'eq' }), [ix({ tenantId: 1, ticketId: 1 })])).toBe(false);
  });

  it('an equality field missing from the index prefix', () => {
    expect(served(q({ tenantId: 'eq', status: 'eq' }), [ix({ tenantId: 1, _id: 1 })])).toBe(false);
  });

  it('a sort the index does not give after the equality prefix', () => {
    expect(served(q({ tenantId: 'eq' }, [['createdAt', -1]]), [ix({ tenantId: 1, _id: 1 })])).toBe(false);
    // range before sort (E-R-S): an in-memory sort
    expect(served(q({ tenantId: 'eq', createdAt: 'range' }, [['name', 1]]), [ix({ tenantId: 1, createdAt: 1, name: 1 })])).toBe(false);
    // a tie-breaker the index lacks
    expect(
      served(
        q({ tenantId: 'eq' }, [
          ['updatedAt', -1],
          ['_id', -1],
        ]),
        [ix({ tenantId: 1, updatedAt: -1 })],
      ),
    ).toBe(false);
  });

  it('a sort whose directions mix the index order and its reverse', () => {
    expect(
      served(
        q({ tenantId: 'eq' }, [
          ['updatedAt', -1],
          ['_id', 1],
        ]),
        [ix({ tenantId: 1, updatedAt: -1, _id: -1 })],
      ),
    ).toBe(false);
  });

  it('$in before the sort fields when the query sorts', () => {
    expect(served(q({ tenantId: 'eq', status: 'in' }, [['updatedAt', -1]]), [ix({ tenantId: 1, status: 1, updatedAt: -1 })])).toBe(false);
  });

  it('an $or with a branch no index serves, and nothing ANDed to narrow it', () => {
    const query: QueryShape = {
      ...q({}),
      filter: { fields: [], or: [{ fields: [{ path: 'a', kind: 'eq' }] }, { fields: [{ path: 'b', kind: 'range' }] }] },
    };
    expect(judgeQuery(query, [ix({ a: 1 })], {}, {})).toEqual({
      served: false,
      reason: expect.stringContaining('an $or branch is not served'),
    });
  });

  it('$regex, $ne or $exists as the only predicate', () => {
    expect(served(q({ name: 'regex' }), [ix({ name: 1 })])).toBe(false);
    expect(served(q({ deletedAt: 'exists' }), [ix({ deletedAt: 1 })])).toBe(false);
    expect(served(q({ kind: 'ne' }), [ix({ kind: 1 })])).toBe(false);
  });

  it('an empty filter on a growing collection', () => {
    expect(judgeQuery(q({}, [], { op: 'delete', multi: true }), [], {}, {})).toEqual({
      served: false,
      reason: expect.stringContaining('empty filter'),
    });
    expect(served(q({}, [['createdAt', -1]]), [ix({ createdAt: 1 })])).toBe(false); // no limit: everything
    expect(served(q({}, [['name', 1]], { limit: 20 }), [ix({ createdAt: 1 })])).toBe(false); // an in-memory sort of everything
  });

  it('a partial index the filter does not name the partial field of', () => {
    expect(indexServes(q({ tenantId: 'eq' }), ix({ tenantId: 1 }, { partial: ['status'] })).served).toBe(false);
    expect(indexServes(q({ tenantId: 'eq', status: 'eq' }), ix({ tenantId: 1, status: 1 }, { partial: ['status'] })).served).toBe(true);
  });
});

describe('checkCoverage', () => {
  const line = (shape: QueryShape, source: string, site: string[]): QueryLogLine => ({ t: 'query', source, site, ...shape });
  const index = (key: Record<string, number>): QueryLogLine => ({ t: 'index', source: 'mesh', via: 'listIndexes', ...ix(key) });

  it('fails a known-unindexed shape and names where it came from', () => {
    const bad = q({ tenantId: 'eq', channelKind: 'eq' }, [['createdAt', -1]]);
    const { queries, findings } = checkCoverage(
      [
        index({ tenantId: 1, _id: 1 }),
        line(q({ tenantId: 'eq' }, [['_id', 1]]), 'tenants', [
          'ChannelsRepository.list services/tenants/src/db/channels.repository.ts:10:5',
        ]),
        line(bad, 'tenants', ['ChannelsRepository.byKind services/tenants/src/db/channels.repository.ts:20:5']),
        line(bad, 'gateway', ['other.ts:1:1']),
      ],
      {},
      {},
    );
    expect(queries).toBe(2);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ shape: bad, sources: ['tenants', 'gateway'] });
    const report = formatFindings(findings);
    expect(report).toContain('convo_x.things find filter {tenantId: eq, channelKind: eq} sort {createdAt: -1}');
    expect(report).toContain('site: ChannelsRepository.byKind services/tenants/src/db/channels.repository.ts:20:5');
    expect(report).toContain('equality on channelKind is not in its equality prefix');
  });

  it('takes indexes from listIndexes and createIndexes alike, once each', () => {
    const { indexes, findings } = checkCoverage([
      index({ tenantId: 1 }),
      { t: 'index', source: 'x', via: 'createIndexes', ...ix({ tenantId: 1 }) },
      line(q({ tenantId: 'eq' }), 'x', []),
    ]);
    expect(indexes.get(`${db}.${collection}`)).toHaveLength(1);
    expect(findings).toEqual([]);
  });
});
