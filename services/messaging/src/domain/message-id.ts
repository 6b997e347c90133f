import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/** Random bytes drawn 4 KiB at a time (as randomUUID does): a draw per id cost more than the rest of the id. */
const pool = Buffer.alloc(4096);
let used = pool.length;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit counter within the millisecond
 * (method 1 of the RFC), then random bits. Ids of one process sort in acceptance order, which the
 * dispatcher uses to break ties between messages of the same millisecond.
 */
export function newMessageId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    // More than 4096 ids in one millisecond: borrow the next one, as the RFC allows.
    lastMs += 1;
    sequence = 0;
  }
  if (used + 16 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const b = Buffer.from(pool.subarray(used, (used += 16)));
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (sequence >> 8);
  b[7] = sequence & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f);
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
