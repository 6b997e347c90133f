import { startDatabase, type Database } from '@convo/dev-db';
import { Schema, type Connection, type Model } from 'mongoose';
import { ClaimStore } from '../src/claims';
import { connectDatabase } from '../src/mongo';

// The claim store on the embedded database: inserts are the claims, so concurrent callers of one
// `_id` get one winner; take-overs and releases act only while their condition matches.

interface KeyDoc {
  _id: string;
  holder: string;
  createdAt: Date;
}

let database: Database;
let conn: Connection;
let model: Model<KeyDoc>;
let store: ClaimStore<KeyDoc>;

beforeAll(async () => {
  database = await startDatabase({ name: 'kit-claims-test' });
  conn = await connectDatabase(database.uri, 'convo_kit_claims');
  model = conn.model<KeyDoc>('Key', new Schema<KeyDoc>({ _id: String, holder: String, createdAt: Date }, { versionKey: false }), 'keys');
  store = new ClaimStore(model);
}, 120_000);

afterAll(async () => {
  await conn?.close();
  await database?.stop();
});

const key = (id: string, holder: string, createdAt = new Date()): KeyDoc => ({ _id: id, holder, createdAt });

it('gives an _id to one of many concurrent claimers', async () => {
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.claim(key('race', `h${i}`))));
  expect(results.filter(Boolean)).toHaveLength(1);
  const winner = `h${results.indexOf(true)}`;
  expect(await store.find('race')).toMatchObject({ _id: 'race', holder: winner });
  expect(await store.find('absent')).toBeNull();
});

it('takes a claim over only while the held condition matches', async () => {
  const old = new Date(Date.now() - 60_000);
  await store.claim(key('expiring', 'first', old));
  // Not expired by this measure: the claim stays with its holder.
  expect(await store.takeOver('expiring', { createdAt: { $lt: new Date(Date.now() - 120_000) } }, { holder: 'second' })).toBe(false);
  expect((await store.find('expiring'))!.holder).toBe('first');
  expect(
    await store.takeOver('expiring', { createdAt: { $lt: new Date(Date.now() - 30_000) } }, { holder: 'second', createdAt: new Date() }),
  ).toBe(true);
  expect((await store.find('expiring'))!.holder).toBe('second');
  // Conditional on the holder: the former one can no longer take it back.
  expect(await store.takeOver('expiring', { holder: 'first' }, { holder: 'first' })).toBe(false);
  expect(await store.takeOver('missing', {}, { holder: 'x' })).toBe(false);
});

it('releases a claim only for its holder, and all claims of one holder at once', async () => {
  await store.claim(key('mine', 'a'));
  await store.release('mine', { holder: 'b' });
  expect(await store.find('mine')).not.toBeNull();
  await store.release('mine', { holder: 'a' });
  expect(await store.find('mine')).toBeNull();
  // Released: the _id can be claimed again.
  expect(await store.claim(key('mine', 'c'))).toBe(true);

  await Promise.all([store.claim(key('c1', 'batch')), store.claim(key('c2', 'batch')), store.claim(key('c3', 'other'))]);
  await store.releaseAll({ holder: 'batch' });
  expect(await model.find({ _id: { $in: ['c1', 'c2', 'c3'] } }).distinct('_id')).toEqual(['c3']);
});

it('passes on errors other than a held _id', async () => {
  const strict = conn.model<KeyDoc>(
    'StrictKey',
    new Schema<KeyDoc>({ _id: String, holder: { type: String, required: true }, createdAt: Date }),
    'strict_keys',
  );
  await expect(new ClaimStore(strict).claim({ _id: 'x' } as KeyDoc)).rejects.toThrow(/holder/);
});
