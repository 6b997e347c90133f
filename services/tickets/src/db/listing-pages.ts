import { escapeRegex } from '@convo/kit/mongo';
import type { QueryFilter } from 'mongoose';
import { cellMatcher, cellOf, eraOf, eraOfKey, parseCell, slotOf, sumCells, type TicketCountDoc, type TicketSlotDoc } from './listing';
import type { Models, TicketDoc, TicketRowDoc, TicketStatus } from './models';
import { SEARCHED_IDENTITIES } from './search';

/** The filters of listTickets; every one is optional but the tenant. */
export interface TicketQuery {
  tenantId: number;
  status?: TicketStatus;
  /** Plain text (not a pattern) matched case-insensitively in the contact's name, number and e-mail. */
  search?: string;
  queueIds?: number[];
  channelIds?: number[];
  /** Dashboard filters: read from the tickets themselves (rows do not carry tags or users). */
  tagId?: number;
  userId?: number;
  /** Dashboard filters: several statuses at once, tickets with no queue, with no user (from the tickets). */
  statuses?: TicketStatus[];
  noQueue?: boolean;
  unassigned?: boolean;
  /** Dashboard filters: last activity at or after `updatedSince` and before `updatedUntil` (from the tickets). */
  updatedSince?: Date;
  updatedUntil?: Date;
}

/** Filters the rows do not serve (they carry no tags or users; their counts know no time range): read from the tickets. */
const onTickets = (q: TicketQuery) =>
  q.tagId !== undefined || q.userId !== undefined || !!q.unassigned || !!q.updatedSince || !!q.updatedUntil;

/** What the dashboard counts tickets by. */
export type TicketGrouping = 'status' | 'queueId' | 'channelId';

/** Newest activity first; the id breaks ties, so a page boundary never repeats or skips a ticket. */
const LIST_ORDER = { updatedAt: -1, _id: -1 } as const;

/** Where a keyset page starts: after the ticket of this activity time and id, in the listing order. */
export interface ListPosition {
  updatedAt: Date;
  id: number;
}

/**
 * The read side of the listing (listing.ts): pages and counts of a tenant's tickets from the rows
 * and counters ListingRepository writes.
 */
export class ListingPages {
  constructor(private readonly models: Models) {}

  /**
   * A page of the tenant's tickets (newest activity first, the id breaking ties) and the number
   * matching the filter. Without a free-text search or a tag or user filter, the counters say which
   * slots hold the page and how many match (listing.ts): the page reads the tenant's counts, one
   * era's slot counts and the rows of the few slots it spans; rows are copies of their tickets, so
   * they are the answer.
   */
  async pageTickets(query: TicketQuery, skip: number, limit: number): Promise<{ tickets: TicketDoc[]; count: number }> {
    if (onTickets(query)) {
      // The dashboard's tag and user filters: rows carry neither, so the tickets themselves (their indexes on MongoDB).
      const filter = ticketFilter(query) as QueryFilter<TicketDoc>;
      const [tickets, count] = await Promise.all([
        this.models.Ticket.find(filter).sort(LIST_ORDER).skip(skip).limit(limit).lean<TicketDoc[]>().exec(),
        this.models.Ticket.countDocuments(filter).exec(),
      ]);
      return { tickets, count };
    }
    if (query.search?.trim()) {
      // Text in names, numbers and e-mails is no equality: on FerretDB this reads every row of the
      // tenant that the status matches (its cost grows with the tenant); on MongoDB the index serves
      // the order and the tenant's rows are filtered along it.
      const filter = ticketFilter(query);
      const [rows, count] = await Promise.all([
        this.models.TicketRow.find(filter).sort(LIST_ORDER).skip(skip).limit(limit).lean<TicketRowDoc[]>().exec(),
        this.models.TicketRow.countDocuments(filter).exec(),
      ]);
      return { tickets: rows.map(ticketOfRow), count };
    }
    return this.pageFromSlots(query, skip, limit);
  }

  /**
   * Three reads, each in parallel where it has several: the tenant's counts; the slot counts of the
   * eras the page spans (known from the era counts); the rows of the slots it spans (known from
   * the slot counts).
   */
  private async pageFromSlots(query: TicketQuery, skip: number, limit: number): Promise<{ tickets: TicketDoc[]; count: number }> {
    const { tenantId } = query;
    const match = cellMatcher(query);
    const counts = await this.models.TicketCount.findById(tenantId).lean<TicketCountDoc>().exec();
    const eras = Object.entries(counts?.eras ?? {}).map(([key, cells]) => ({ at: eraOfKey(key), n: sumCells(cells, match) }));
    const count = eras.reduce((sum, e) => sum + e.n, 0);
    const eraSpan = spanOf(eras, skip, limit);
    const slotDocs = await Promise.all(
      eraSpan.units.map(({ at }) => this.models.TicketSlot.find({ tenantId, era: at }).lean<TicketSlotDoc[]>().exec()),
    );
    const slotSpan = spanOf(
      slotDocs.flat().map((s) => ({ at: s.slot, n: sumCells(s.cells, match) })),
      eraSpan.skip,
      limit,
    );
    const rows = await Promise.all(
      slotSpan.units.map(async ({ at }) => {
        const filter: QueryFilter<TicketRowDoc> = { tenantId, slot: at };
        if (query.status) filter.status = query.status;
        return (await this.models.TicketRow.find(filter).lean<TicketRowDoc[]>().exec()).filter((r) => match(cellOf(r))).sort(byListOrder);
      }),
    );
    return {
      tickets: rows
        .flat()
        .slice(slotSpan.skip, slotSpan.skip + limit)
        .map(ticketOfRow),
      count,
    };
  }

  /** A tenant's tickets counted by status, queue or channel: its counts document, read once. */
  async countTicketsBy(tenantId: number, field: TicketGrouping): Promise<Array<{ key: string | number | null; count: number }>> {
    const counts = await this.models.TicketCount.findById(tenantId).lean<TicketCountDoc>().exec();
    const groups = new Map<string | number | null, number>();
    for (const cells of Object.values(counts?.eras ?? {})) {
      for (const [cell, n] of Object.entries(cells)) {
        if (n <= 0) continue;
        const key = parseCell(cell)[field];
        groups.set(key, (groups.get(key) ?? 0) + n);
      }
    }
    return [...groups]
      .map(([key, count]) => ({ key, count }))
      .sort((a, b) => b.count - a.count || String(a.key).localeCompare(String(b.key)));
  }

  /**
   * The dashboard's keyset page: the `limit` tickets after `after` in the listing order (from the
   * newest without it), whether more follow, and the number matching the filter. A ticket written
   * between two pages moves to the front of the listing: the next page neither repeats nor skips
   * another because of it (an offset would). The same reads as an offset page from the counters:
   * the tenant's counts, then the eras and slots at or before the position, newest first, as many
   * as their counts say hold the page (the position's own slot read whole and cut at the position).
   */
  async pageTicketsAfter(query: TicketQuery, after: ListPosition | null, limit: number) {
    const want = limit + 1;
    let rows: TicketRowDoc[];
    let count: number;
    if (onTickets(query) || query.search?.trim()) {
      const filter = ticketFilter(query);
      const model = (onTickets(query) ? this.models.Ticket : this.models.TicketRow) as unknown as Models['TicketRow'];
      const find = (f: QueryFilter<TicketRowDoc>) => model.find(f).sort(LIST_ORDER).limit(want).lean<TicketRowDoc[]>().exec();
      // After a position: its ties (the same time, a lower id) and what is older, each an index range.
      const range = (filter.updatedAt ?? {}) as Record<string, Date>;
      const [ties, older, total] = await Promise.all([
        after ? find({ ...filter, updatedAt: after.updatedAt, _id: { $lt: after.id } }) : Promise.resolve([]),
        find(after ? { ...filter, updatedAt: { ...range, $lt: after.updatedAt } } : filter),
        model.countDocuments(filter).exec(),
      ]);
      rows = [...ties, ...older].slice(0, want);
      count = total;
    } else {
      ({ rows, count } = await this.rowsFromSlotsAfter(query, after, want));
    }
    return { tickets: rows.slice(0, limit).map(ticketOfRow), count, hasMore: rows.length > limit };
  }

  private async rowsFromSlotsAfter(query: TicketQuery, after: ListPosition | null, want: number) {
    const { tenantId } = query;
    const match = cellMatcher(query);
    const lastSlot = after ? slotOf(after.updatedAt) : Infinity;
    const counts = await this.models.TicketCount.findById(tenantId).lean<TicketCountDoc>().exec();
    const allEras = Object.entries(counts?.eras ?? {}).map(([key, cells]) => ({ at: eraOfKey(key), n: sumCells(cells, match) }));
    const count = allEras.reduce((sum, e) => sum + e.n, 0);
    const isAfter = (r: TicketRowDoc) =>
      !after ||
      r.updatedAt.getTime() < after.updatedAt.getTime() ||
      (r.updatedAt.getTime() === after.updatedAt.getTime() && r._id < after.id);
    const rows: TicketRowDoc[] = [];
    const eras = newestFirst(allEras.filter((e) => e.at <= eraOf(lastSlot === Infinity ? Number.MAX_SAFE_INTEGER : lastSlot)));
    while (eras.length && rows.length < want) {
      const eraDocs = await Promise.all(
        takeCovering(eras, want - rows.length).map(({ at }) =>
          this.models.TicketSlot.find({ tenantId, era: at }).lean<TicketSlotDoc[]>().exec(),
        ),
      );
      const slots = newestFirst(
        eraDocs
          .flat()
          .map((s) => ({ at: s.slot, n: sumCells(s.cells, match) }))
          .filter((s) => s.at <= lastSlot),
      );
      while (slots.length && rows.length < want) {
        const read = await Promise.all(
          takeCovering(slots, want - rows.length).map(async ({ at }) => {
            const filter: QueryFilter<TicketRowDoc> = { tenantId, slot: at };
            if (query.status) filter.status = query.status;
            const found = await this.models.TicketRow.find(filter).lean<TicketRowDoc[]>().exec();
            return found.filter((r) => match(cellOf(r)) && isAfter(r)).sort(byListOrder);
          }),
        );
        rows.push(...read.flat());
      }
    }
    return { rows: rows.slice(0, want), count };
  }
}

/**
 * The units (eras or slots, newest first) that hold the items `skip` to `skip + limit` of the
 * listing, given how many each holds, and how many of the first unit's items come before the page.
 */
function spanOf(all: Array<{ at: number; n: number }>, skip: number, limit: number) {
  const units = all.filter((u) => u.n > 0).sort((a, b) => b.at - a.at);
  let first = 0;
  let before = skip;
  while (first < units.length && before >= units[first].n) before -= units[first++].n;
  let last = first;
  for (let held = 0; last < units.length && held < before + limit; last++) held += units[last].n;
  return { units: units.slice(first, last), skip: before };
}

/** The listing order in memory: newest `updatedAt` first, then the higher id. */
const byListOrder = (a: Pick<TicketRowDoc, '_id' | 'updatedAt'>, b: Pick<TicketRowDoc, '_id' | 'updatedAt'>) =>
  b.updatedAt.getTime() - a.updatedAt.getTime() || b._id - a._id;

const ticketOfRow = ({ slot, ...ticket }: TicketRowDoc): TicketDoc => ticket;

/** The listing filter: the same field names on tickets and on their listing rows. */
function ticketFilter(q: TicketQuery): QueryFilter<TicketRowDoc> {
  const filter: QueryFilter<TicketRowDoc> = { tenantId: q.tenantId };
  if (q.status) filter.status = q.status;
  if (q.statuses?.length) filter.status = { $in: q.statuses };
  if (q.queueIds?.length) filter.queueId = { $in: q.queueIds };
  if (q.noQueue) filter.queueId = null;
  if (q.unassigned) (filter as QueryFilter<TicketDoc>).userId = null;
  if (q.updatedSince || q.updatedUntil) {
    filter.updatedAt = { ...(q.updatedSince && { $gte: q.updatedSince }), ...(q.updatedUntil && { $lt: q.updatedUntil }) };
  }
  if (q.channelIds?.length) filter.channelId = { $in: q.channelIds };
  if (q.tagId !== undefined) (filter as QueryFilter<TicketDoc>).tagIds = q.tagId;
  if (q.userId !== undefined) (filter as QueryFilter<TicketDoc>).userId = q.userId;
  const search = q.search?.trim();
  if (search) {
    const text = { $regex: escapeRegex(search), $options: 'i' };
    // The identities beyond the phone too (docs/api/contact-identities.md): more alternatives of
    // the same filter on the rows the order already reads, no other read.
    const or: QueryFilter<TicketRowDoc>[] = ['contact.name', 'contact.email', ...SEARCHED_IDENTITIES.map((f) => `contact.${f}`)].map(
      (field) => ({ [field]: text }),
    );
    // "+55 (11) 9876" finds 5511987654321: numbers are stored as digits.
    const digits = /^[+\d\s().-]+$/.test(search) ? search.replace(/\D/g, '') : '';
    or.push({ 'contact.number': digits ? { $regex: escapeRegex(digits) } : text });
    filter.$or = or;
  }
  return filter;
}

/** Units with something in them, newest first. */
const newestFirst = (units: Array<{ at: number; n: number }>) => units.filter((u) => u.n > 0).sort((a, b) => b.at - a.at);

/**
 * Takes from the front of `units` (newest first) as many as their counts say hold `wanted` items:
 * the first is always taken (the position's own unit may hold fewer after the position).
 */
function takeCovering(units: Array<{ at: number; n: number }>, wanted: number) {
  let taken = 0;
  let held = 0;
  while (taken < units.length && (taken === 0 || held < wanted)) held += units[taken++].n;
  return units.splice(0, taken);
}
