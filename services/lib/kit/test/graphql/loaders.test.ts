import { findByIds, requestLoader } from '../../src/graphql/loaders';

describe('requestLoader', () => {
  const source = () => {
    const batches: number[][] = [];
    const load = async (ids: readonly number[]) => {
      batches.push([...ids]);
      return new Map(ids.filter((id) => id !== 404).map((id) => [id, { id }]));
    };
    return { batches, load };
  };

  it('collects the keys asked in one tick into one batch of distinct keys, and answers a miss as null', async () => {
    const { batches, load } = source();
    const request = {};
    const answers = await Promise.all([1, 2, 1, 404, 2].map((id) => requestLoader(request, 'Thing', load).load(id)));
    expect(answers).toEqual([{ id: 1 }, { id: 2 }, { id: 1 }, null, { id: 2 }]);
    expect(batches).toEqual([[1, 2, 404]]);
  });

  it('keeps one loader per kind per request, and nothing across requests', async () => {
    const { batches, load } = source();
    const first = {};
    await requestLoader(first, 'Thing', load).load(1);
    await requestLoader(first, 'Thing', load).load(1);
    await requestLoader(first, 'Other', load).load(1);
    await requestLoader({}, 'Thing', load).load(1);
    expect(batches).toEqual([[1], [1], [1]]);
  });
});

describe('findByIds', () => {
  it('looks each id up once and maps the found ones', async () => {
    const asked: string[] = [];
    const found = await findByIds(['a', 'b', 'c'], async (id) => (asked.push(id), id === 'b' ? null : { id }));
    expect(asked).toEqual(['a', 'b', 'c']);
    expect([...found.entries()]).toEqual([['a', { id: 'a' }], ['c', { id: 'c' }]]);
  });
});
