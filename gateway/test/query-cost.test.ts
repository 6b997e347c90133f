import { buildSchema, parse } from 'graphql';
import { getComplexity, simpleEstimator } from 'graphql-query-complexity';
import { LARGEST_PAGE, pageSizeEstimator } from '../src/dashboard/limits';

// The cost estimator counts a list at the size asked; a size the services refuse (0, negative,
// too large) counts as the largest page, never as a single item.
describe('query cost', () => {
  const schema = buildSchema(
    'type Item { a: Int b: Int } type Query { items(limit: Int): [Item] page(first: Int): [Item] latest(last: Int): [Item] one: Item }',
  );
  const cost = (query: string, variables: Record<string, unknown> = {}) =>
    getComplexity({ schema, query: parse(query), variables, estimators: [pageSizeEstimator, simpleEstimator({ defaultComplexity: 1 })] });

  it('counts a list at the size asked', () => {
    expect(cost('{ items(limit: 10) { a b } }')).toBe(1 + 2 * 10);
    expect(cost('query($n: Int) { page(first: $n) { a } }', { n: 7 })).toBe(1 + 7);
    expect(cost('{ latest(last: 30) { a b } }')).toBe(1 + 2 * 30);
  });

  it('counts 0, a negative or an oversized size as the largest page', () => {
    for (const size of [0, -1, LARGEST_PAGE + 1, 2147483647]) {
      expect(cost(`{ items(limit: ${size}) { a b } }`)).toBe(1 + 2 * LARGEST_PAGE);
    }
    expect(cost('query($n: Int) { page(first: $n) { a } }', { n: 0 })).toBe(1 + LARGEST_PAGE);
    expect(cost('{ latest(last: -5) { a } }')).toBe(1 + LARGEST_PAGE);
  });
});
