import { TtlCache } from '../src/cache';

describe('TtlCache', () => {
  afterEach(() => jest.useRealTimers());

  it('expires entries after their time to live', () => {
    jest.useFakeTimers({ now: 0 });
    const c = new TtlCache<string, number>(1000);
    c.set('a', 1);
    jest.setSystemTime(999);
    expect(c.get('a')).toBe(1);
    jest.setSystemTime(1000);
    expect(c.get('a')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const c = new TtlCache<string, number>(60_000, 2);
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual([undefined, 2, 3]);
  });

  it('loads once and does not cache failures', async () => {
    const c = new TtlCache<string, number>(60_000);
    const load = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(7);
    await expect(c.getOrLoad('k', load)).rejects.toThrow('down');
    expect(await c.getOrLoad('k', load)).toBe(7);
    expect(await c.getOrLoad('k', load)).toBe(7);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('caches nothing with a zero time to live', async () => {
    const c = new TtlCache<string, number>(0);
    c.set('a', 1);
    expect(c.get('a')).toBeUndefined();
  });
});
