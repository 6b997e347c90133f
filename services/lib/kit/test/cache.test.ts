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

  it('shares one load among the callers that miss the same key at once', async () => {
    const c = new TtlCache<string, number>(60_000);
    let release!: (v: number) => void;
    const load = jest.fn(() => new Promise<number>((resolve) => (release = resolve)));
    const callers = Array.from({ length: 20 }, () => c.getOrLoad('k', load));
    release(7);
    expect(await Promise.all(callers)).toEqual(Array(20).fill(7));
    expect(load).toHaveBeenCalledTimes(1);
    expect(await c.getOrLoad('k', load)).toBe(7);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('gives a shared failure to every waiting caller and loads again on the next miss', async () => {
    const c = new TtlCache<string, number>(60_000);
    const load = jest.fn().mockRejectedValueOnce(new Error('down')).mockResolvedValue(3);
    const results = await Promise.allSettled([c.getOrLoad('k', load), c.getOrLoad('k', load)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await c.getOrLoad('k', load)).toBe(3);
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('does not keep what a load begun before clear() read', async () => {
    const c = new TtlCache<string, number>(60_000);
    let release!: (v: number) => void;
    const first = c.getOrLoad('k', () => new Promise<number>((resolve) => (release = resolve)));
    c.clear();
    release(1);
    expect(await first).toBe(1);
    expect(await c.getOrLoad('k', async () => 2)).toBe(2);
  });

  it('caches nothing with a zero time to live', async () => {
    const c = new TtlCache<string, number>(0);
    c.set('a', 1);
    expect(c.get('a')).toBeUndefined();
  });
});
