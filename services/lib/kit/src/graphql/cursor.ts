import { validation } from '../errors';

/**
 * Connection cursors of the dashboard API: opaque to clients, the offset of the next node in the
 * list's stable order (the lists are sorted with their id breaking ties).
 */
export const offsetCursor = (offset: number): string => Buffer.from(`o:${offset}`).toString('base64url');

/** The offset an `after` cursor names (0 without one); ERR_VALIDATION for a cursor not made here. */
export function readOffsetCursor(cursor: string | null | undefined): number {
  if (!cursor) return 0;
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw validation('Invalid cursor', [{ field: 'after', message: 'must be an endCursor this API answered' }]);
  return Number(m[1]);
}

/**
 * A keyset cursor: the position of the last node of a page in a list ordered by a time and an id
 * (newest first), so that the next page starts after that node wherever the list moved meanwhile.
 */
export const keysetCursor = (at: Date | string, id: number): string =>
  Buffer.from(`k:${new Date(at).getTime()}:${id}`).toString('base64url');

/** The position a keyset `after` cursor names (null without one); ERR_VALIDATION for a cursor not made here. */
export function readKeysetCursor(cursor: string | null | undefined): { at: Date; id: number } | null {
  if (!cursor) return null;
  const m = /^k:(\d{1,15}):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw validation('Invalid cursor', [{ field: 'after', message: 'must be an endCursor this API answered' }]);
  return { at: new Date(Number(m[1])), id: Number(m[2]) };
}

/** `first` of a connection (or `limit` of a list, named by `field`): 1 to `max`; 0 is never "no limit". */
export function checkPageSize(first: number, max: number, field = 'first'): void {
  if (!Number.isInteger(first) || first < 1 || first > max) {
    throw validation('Invalid page size', [{ field, message: `must be 1 to ${max}` }]);
  }
}
