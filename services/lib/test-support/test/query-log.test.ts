import { mongo } from 'mongoose';
import { filterShape, shapesOfCommand } from '../src/query-log';
const { BSONRegExp, ObjectId } = mongo;

describe('filterShape', () => {
  it('names each field with the kind of its operator, never its value', () => {
    const shape = filterShape({
      tenantId: 7,
      _id: new ObjectId(),
      at: new Date(),
      contact: { number: '1' },
      status: { $in: ['open', 'pending'] },
      updatedAt: { $gte: new Date(), $lt: new Date() },
      name: /joe/i,
      code: { $regex: '^AB' },
      deletedAt: { $exists: false },
      kind: { $ne: 'x' },
      tags: { $elemMatch: { a: 1 } },
      explicit: { $eq: 3 },
    });
    expect(shape).toEqual({
      fields: [
        { path: 'tenantId', kind: 'eq' },
        { path: '_id', kind: 'eq' },
        { path: 'at', kind: 'eq' },
        { path: 'contact', kind: 'eq' },
        { path: 'status', kind: 'in' },
        { path: 'updatedAt', kind: 'range' },
        { path: 'name', kind: 'regex' },
        { path: 'code', kind: 'range' },
        { path: 'deletedAt', kind: 'exists' },
        { path: 'kind', kind: 'ne' },
        { path: 'tags', kind: 'other' },
        { path: 'explicit', kind: 'eq' },
      ],
    });
  });

  it('flattens $and and keeps $or branches apart', () => {
    expect(filterShape({ $and: [{ a: 1 }, { b: { $gt: 2 } }], $or: [{ c: 1 }, { d: new BSONRegExp('x', 'i') }], $expr: {} })).toEqual({
      fields: [
        { path: 'a', kind: 'eq' },
        { path: 'b', kind: 'range' },
        { path: '$expr', kind: 'other' },
      ],
      or: [{ fields: [{ path: 'c', kind: 'eq' }] }, { fields: [{ path: 'd', kind: 'regex' }] }],
    });
  });
});

describe('shapesOfCommand', () => {
  it('reads find, with a Map sort as the driver sends it', () => {
    expect(
      shapesOfCommand('db', {
        find: 'tickets',
        filter: { tenantId: 1 },
        sort: new Map([
          ['updatedAt', -1],
          ['_id', -1],
        ]),
        limit: 20,
      }),
    ).toEqual([
      {
        db: 'db',
        collection: 'tickets',
        op: 'find',
        filter: { fields: [{ path: 'tenantId', kind: 'eq' }] },
        sort: [
          ['updatedAt', -1],
          ['_id', -1],
        ],
        limit: 20,
      },
    ]);
  });

  it('reads each statement of an update and a delete command', () => {
    const updates = shapesOfCommand('db', {
      update: 'c',
      updates: [
        { q: { a: 1 }, u: {}, multi: true },
        { q: { _id: 2 }, u: {}, upsert: true },
      ],
    });
    expect(updates.map((s) => [s.op, s.filter.fields.map((f) => f.path), s.multi, s.upsert])).toEqual([
      ['update', ['a'], true, false],
      ['update', ['_id'], false, true],
    ]);
    const deletes = shapesOfCommand('db', {
      delete: 'c',
      deletes: [
        { q: {}, limit: 0 },
        { q: { a: 1 }, limit: 1 },
      ],
    });
    expect(deletes.map((s) => [s.op, s.filter.fields.length, s.multi])).toEqual([
      ['delete', 0, true],
      ['delete', 1, false],
    ]);
  });

  it('takes the leading $match, $sort and $limit of a pipeline', () => {
    const [shape] = shapesOfCommand('db', {
      aggregate: 'messages',
      pipeline: [{ $match: { tenantId: 1 } }, { $sort: { createdAt: -1 } }, { $limit: 5 }, { $group: { _id: null } }],
    });
    expect(shape).toEqual({
      db: 'db',
      collection: 'messages',
      op: 'aggregate',
      filter: { fields: [{ path: 'tenantId', kind: 'eq' }] },
      sort: [['createdAt', -1]],
      limit: 5,
      stages: ['$match', '$sort', '$limit', '$group'],
    });
  });

  it('reads findAndModify and count; ignores inserts and administrative commands', () => {
    expect(shapesOfCommand('db', { findAndModify: 'counters', query: { _id: 'k' }, update: {}, upsert: true })[0]).toMatchObject({
      op: 'findAndModify',
      upsert: true,
    });
    expect(shapesOfCommand('db', { count: 'c', query: { a: { $in: [1] } } })[0]).toMatchObject({
      op: 'count',
      filter: { fields: [{ path: 'a', kind: 'in' }] },
    });
    expect(shapesOfCommand('db', { insert: 'c', documents: [{}] })).toEqual([]);
    expect(shapesOfCommand('admin', { ping: 1 })).toEqual([]);
    expect(shapesOfCommand('db', { getMore: 1n, collection: 'c' })).toEqual([]);
  });
});
