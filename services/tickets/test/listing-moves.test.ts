import { cellMatcher, cellOf, countMoves, eraKey, SLOTS_PER_ERA, type Listed } from '../src/db/listing';

// Which counters a row's write moves (the send path writes a ticket on every message: most writes
// must move none).

const row = (over: Partial<Listed> = {}): Listed => ({
  tenantId: 5,
  slot: 1000 * SLOTS_PER_ERA + 3,
  status: 'open',
  queueId: null,
  channelId: 7,
  ...over,
});

it('moves nothing when a write leaves the row in its slot and cell', () => {
  expect(countMoves(row(), row())).toEqual({ slots: [], tenants: [] });
});

it('counts a new ticket once in its slot and in its era, and a deleted one out', () => {
  const era = `eras.${eraKey(1000)}.open_none_7`;
  expect(countMoves(null, row())).toEqual({
    slots: [{ id: `5:${row().slot}`, tenantId: 5, slot: row().slot, inc: { 'cells.open_none_7': 1 } }],
    tenants: [{ tenantId: 5, inc: { [era]: 1 } }],
  });
  expect(countMoves(row(), null)).toEqual({
    slots: [{ id: `5:${row().slot}`, tenantId: 5, slot: row().slot, inc: { 'cells.open_none_7': -1 } }],
    tenants: [{ tenantId: 5, inc: { [era]: -1 } }],
  });
});

it('moves a row to a newer slot of the same era without touching the era count', () => {
  const later = row({ slot: row().slot + 1 });
  const moves = countMoves(row(), later);
  expect(moves.slots.map((s) => [s.id, s.inc])).toEqual([
    [`5:${row().slot}`, { 'cells.open_none_7': -1 }],
    [`5:${later.slot}`, { 'cells.open_none_7': 1 }],
  ]);
  expect(moves.tenants).toEqual([]);
});

it('moves a status or queue change between cells of one slot with one update per document', () => {
  const moves = countMoves(row(), row({ status: 'closed', queueId: 12 }));
  expect(moves.slots).toEqual([
    { id: `5:${row().slot}`, tenantId: 5, slot: row().slot, inc: { 'cells.open_none_7': -1, 'cells.closed_12_7': 1 } },
  ]);
  expect(moves.tenants).toEqual([
    { tenantId: 5, inc: { [`eras.${eraKey(1000)}.open_none_7`]: -1, [`eras.${eraKey(1000)}.closed_12_7`]: 1 } },
  ]);
});

it('moves a row into a new era', () => {
  const moves = countMoves(row(), row({ slot: 1001 * SLOTS_PER_ERA }));
  expect(moves.tenants).toEqual([
    { tenantId: 5, inc: { [`eras.${eraKey(1000)}.open_none_7`]: -1, [`eras.${eraKey(1001)}.open_none_7`]: 1 } },
  ]);
});

it('selects the cells of a filter: status, queues (never the unqueued) and channels', () => {
  const cells = [row(), row({ status: 'closed' }), row({ queueId: 12 }), row({ queueId: 13, channelId: 8 })].map(cellOf);
  expect(cells.filter(cellMatcher({}))).toEqual(cells);
  expect(cells.filter(cellMatcher({ status: 'open' }))).toEqual([cells[0], cells[2], cells[3]]);
  expect(cells.filter(cellMatcher({ queueIds: [12, 13] }))).toEqual([cells[2], cells[3]]);
  expect(cells.filter(cellMatcher({ queueIds: [13], channelIds: [7] }))).toEqual([]);
  expect(cells.filter(cellMatcher({ channelIds: [8, 7], status: 'closed' }))).toEqual([cells[1]]);
});
