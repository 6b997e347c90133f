import { newMessageId } from '../../src/domain/message-id';

describe('newMessageId', () => {
  it('makes distinct UUIDv7 ids that sort in the order they were made, across random pool refills', () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => newMessageId(1_800_000_000_000 + Math.floor(i / 3)));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    // The random part differs between ids of one millisecond.
    expect(new Set(ids.map((id) => id.slice(19))).size).toBe(ids.length);
  });
});
