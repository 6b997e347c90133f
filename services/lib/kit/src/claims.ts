import type { Model, QueryFilter } from 'mongoose';
import { isDuplicateKey } from './mongo';

/**
 * Claims kept in one collection: a claim is a document whose `_id` names what is claimed (a key,
 * a position, a slot). Inserting it is the claim, since a unique `_id` insert is atomic on MongoDB
 * and on the embedded FerretDB alike (which has no transactions, and checks a conditional update's
 * filter before its write rather than atomically with it).
 *
 * - `claim` inserts; false when another caller holds the `_id` already.
 * - `find` reads the holder.
 * - `takeOver` rewrites a claim only while `held` still matches it (an expired window, the same
 *   holder), so of concurrent callers the one that matches wins on MongoDB.
 * - `release` deletes the claim, only if `holder` matches it (a caller frees only its own).
 */
export class ClaimStore<T extends { _id: string }> {
  constructor(private readonly model: Model<T>) {}

  claim(doc: T): Promise<boolean> {
    return insertOnce(() => this.model.create(doc));
  }

  find(id: string): Promise<T | null> {
    return this.model.findById(id).lean<T>().exec();
  }

  /** Sets `set` on the claim `id` while `held` matches it; false when it no longer does. */
  async takeOver(id: string, held: QueryFilter<T>, set: Partial<Omit<T, '_id'>>): Promise<boolean> {
    const res = await this.model.updateOne({ ...held, _id: id } as QueryFilter<T>, { $set: set } as never).exec();
    return res.matchedCount > 0;
  }

  /** Deletes the claim `id` if `holder` matches it (any holder when omitted). */
  async release(id: string, holder: QueryFilter<T> = {}): Promise<void> {
    await this.model.deleteOne({ ...holder, _id: id } as QueryFilter<T>).exec();
  }

  /** Deletes every claim matching `filter` (all the claims one caller took). */
  async releaseAll(filter: QueryFilter<T>): Promise<void> {
    await this.model.deleteMany(filter).exec();
  }
}

/** Runs an insert that a unique index guards: true when it stored, false when the key was taken. */
export async function insertOnce(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
