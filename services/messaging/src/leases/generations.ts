/**
 * The one claim mechanism of messaging's background workers (the webhook relay's events, the
 * dispatcher's partitions): a thing is taken by INSERTING a document `<key>#<gen>` whose unique
 * `_id` only one writer can create. A unique insert is the one write FerretDB applies atomically
 * (its conditional updates read, then write), so a compare-and-set on a version field could let two
 * workers both win. Claim documents are never re-inserted or taken over: a later claim uses the next
 * generation, allowed only once the previous one has finished or its lease has run out.
 */
export interface Generations {
  /** Inserts the claim of `gen`; false when that generation exists already. */
  insert(gen: number): Promise<boolean>;
  /** The claim of `gen` exists, has not finished, and its lease has not run out. */
  isLive(gen: number): Promise<boolean>;
}

/** How many stale generations a claim walks past before giving up for this round. */
const MAX_CLAIM_STEPS = 20;

export const generationId = (key: string, gen: number) => `${key}#${gen}`;

/**
 * Takes the next free generation after `knownGen` (the highest one the caller knows of), or null
 * when a live claim holds the thing. A finished or expired generation is stepped over.
 */
export async function claimNextGeneration(store: Generations, knownGen: number): Promise<number | null> {
  if (knownGen > 0 && (await store.isLive(knownGen))) return null;
  for (let gen = knownGen + 1, step = 0; step < MAX_CLAIM_STEPS; gen++, step++) {
    if (await store.insert(gen)) return gen;
    if (await store.isLive(gen)) return null;
  }
  return null;
}
