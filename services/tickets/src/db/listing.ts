// How listTickets finds a page without reading the tenant's every ticket.
//
// FerretDB 1.24 (the embedded default) pushes down to PostgreSQL only top-level equality filters;
// it sorts, skips, limits and counts in memory after reading every matching document. So a page is
// cheap only when an equality names few documents. Each listing row carries `slot`, the hour of its
// `updatedAt`: slots partition time, so the rows of newer slots all come before those of older ones
// in the listing order (newest activity first, the id breaking ties), and a page is the rows of a few
// slots, read by `{tenantId, slot}` and sorted in memory.
//
// Which slots: counter documents say how many rows each slot holds, per "cell" (a status, queue and
// channel combination, the listing's filters). A tenant's document (`ticket_counts`, by tenant id)
// holds the counts per era (a week of slots); a slot document (`ticket_slots`) holds one slot's
// counts and is found by `{tenantId, era}`. A page reads the tenant's document, walks its eras newest
// first skipping whole eras by their counts, reads the slot documents of the era where the page
// starts, skips whole slots likewise, and reads only the rows of the slots that hold the page. The
// answer's count is the sum of the matching cells. Empty slots and eras cost nothing: a row leaving a
// slot lowers its counts, and a walk passes zero counts without a read.
//
// Counters change only when a row enters or leaves a (slot, cell): a new ticket, a status, queue or
// channel change, or the first write of a ticket in a new hour. A ticket written many times within
// the hour (the send path) writes no counter.
import { Schema } from 'mongoose';

/** A slot is an hour of `updatedAt` (milliseconds since the epoch divided by this). */
export const SLOT_MS = 3_600_000;
/** An era is a week of slots: a tenant's counts name one key per era and cell. */
export const SLOTS_PER_ERA = 168;

export const slotOf = (updatedAt: Date) => Math.floor(updatedAt.getTime() / SLOT_MS);
export const eraOf = (slot: number) => Math.floor(slot / SLOTS_PER_ERA);
export const slotDocId = (tenantId: number, slot: number) => `${tenantId}:${slot}`;

/**
 * An era's field name in a tenant's counts: `w` and the era number. A bare number would be a
 * path segment that FerretDB and MongoDB may read as an array index.
 */
export const eraKey = (era: number) => `w${era}`;
export const eraOfKey = (key: string) => Number(key.slice(1));

/** Counts by cell key. */
export type Cells = Record<string, number>;

/** What a row is counted under: where it sits (slot) and what the listing filters select (cell). */
export interface Listed {
  tenantId: number;
  slot: number;
  status: string;
  queueId: number | null;
  channelId: number;
}

/** `<status>_<queueId or none>_<channelId>`: a field name MongoDB takes (no dot, no `$`). */
export const cellOf = (r: { status: string; queueId?: number | null; channelId: number }) =>
  `${r.status}_${r.queueId ?? 'none'}_${r.channelId}`;

export function parseCell(key: string): { status: string; queueId: number | null; channelId: number } {
  const [status, queue, channel] = key.split('_');
  return { status, queueId: queue === 'none' ? null : Number(queue), channelId: Number(channel) };
}

/**
 * The cells a listing filter selects: status equal (or among `statuses`), queue and channel among
 * the given ones, no queue with `noQueue`.
 */
export function cellMatcher(q: {
  status?: string;
  statuses?: string[];
  queueIds?: number[];
  noQueue?: boolean;
  channelIds?: number[];
}): (key: string) => boolean {
  const statuses = q.statuses?.length ? new Set(q.statuses) : null;
  const queues = q.queueIds?.length ? new Set(q.queueIds) : null;
  const channels = q.channelIds?.length ? new Set(q.channelIds) : null;
  const memo = new Map<string, boolean>();
  return (key) => {
    let hit = memo.get(key);
    if (hit === undefined) {
      const c = parseCell(key);
      hit =
        (!q.status || c.status === q.status) &&
        (!statuses || statuses.has(c.status)) &&
        (!queues || (c.queueId !== null && queues.has(c.queueId))) &&
        (!q.noQueue || c.queueId === null) &&
        (!channels || channels.has(c.channelId));
      memo.set(key, hit);
    }
    return hit;
  };
}

export function sumCells(cells: Cells | undefined, match: (key: string) => boolean): number {
  let n = 0;
  for (const [key, count] of Object.entries(cells ?? {})) if (count > 0 && match(key)) n += count;
  return n;
}

/**
 * The counter changes of a row moving from `before` to `after` (either null: a new or a deleted
 * ticket): per slot document and per tenant document, the `$inc` of each, without zero entries (a
 * move inside one slot and cell changes nothing).
 */
export function countMoves(before: Listed | null, after: Listed | null) {
  const slots = new Map<string, { tenantId: number; slot: number; inc: Cells }>();
  const tenants = new Map<number, Cells>();
  const add = (r: Listed, by: number) => {
    const cell = cellOf(r);
    const id = slotDocId(r.tenantId, r.slot);
    const slot = slots.get(id) ?? { tenantId: r.tenantId, slot: r.slot, inc: {} };
    slot.inc[`cells.${cell}`] = (slot.inc[`cells.${cell}`] ?? 0) + by;
    slots.set(id, slot);
    const tenant = tenants.get(r.tenantId) ?? {};
    const path = `eras.${eraKey(eraOf(r.slot))}.${cell}`;
    tenant[path] = (tenant[path] ?? 0) + by;
    tenants.set(r.tenantId, tenant);
  };
  if (before) add(before, -1);
  if (after) add(after, 1);
  const nonZero = (inc: Cells) => Object.fromEntries(Object.entries(inc).filter(([, v]) => v !== 0));
  return {
    slots: [...slots]
      .map(([id, s]) => ({ id, tenantId: s.tenantId, slot: s.slot, inc: nonZero(s.inc) }))
      .filter((s) => Object.keys(s.inc).length > 0),
    tenants: [...tenants].map(([tenantId, inc]) => ({ tenantId, inc: nonZero(inc) })).filter((t) => Object.keys(t.inc).length > 0),
  };
}

/**
 * A tenant's listing counts: `eras[w<era>][cell]` rows. `_id` is the tenant id; the document
 * `_id: 0` (no tenant has it) records the layout the rows and counts were built with.
 */
export interface TicketCountDoc {
  _id: number;
  eras?: Record<string, Cells>;
  layout?: { slotMs: number; slotsPerEra: number };
}

/** One slot's listing counts by cell; `_id` is `<tenantId>:<slot>`. */
export interface TicketSlotDoc {
  _id: string;
  tenantId: number;
  era: number;
  slot: number;
  cells: Cells;
}

/** Counters are written with the driver's `$inc` (their field names are data), so the schemas are loose. */
export function countSchemas(opts: { versionKey: false }) {
  const tenant = new Schema<TicketCountDoc>({ _id: Number, eras: Schema.Types.Mixed, layout: Schema.Types.Mixed }, opts);
  const slot = new Schema<TicketSlotDoc>({ _id: String, tenantId: Number, era: Number, slot: Number, cells: Schema.Types.Mixed }, opts);
  // listTickets: the slots of one era of a tenant.
  slot.index({ tenantId: 1, era: 1 });
  return { tenant, slot };
}
