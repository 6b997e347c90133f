import { buildSchema } from 'graphql';
import { startSubgraphServer, type SubgraphServer } from '../../src/graphql/subgraph';
import { createLogger } from '../../src/logger';

// Subgraphs answer only the gateway: the bearer token they check is the subgraph token they were
// given (SUBGRAPH_TOKEN in the manifests), not the super-admin token.
describe('subgraph token', () => {
  const token = 's'.repeat(32);
  let server: SubgraphServer;
  let url: string;

  beforeAll(async () => {
    server = await startSubgraphServer(buildSchema('type Query { ping: String }'), 0, {
      token,
      log: createLogger('test', 'silent'),
      host: '127.0.0.1',
    });
    url = `http://127.0.0.1:${server.port}/graphql`;
  });
  afterAll(() => server.close());

  const ask = (authorization?: string) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ query: '{ __typename }' }),
    });

  it('answers the bearer of its token', async () => {
    const res = await ask(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('refuses any other bearer, and none, with the error envelope', async () => {
    for (const authorization of [undefined, `Bearer ${'a'.repeat(32)}`, `Basic ${token}`]) {
      const res = await ask(authorization);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ success: false, error: 'ERR_UNAUTHORIZED' });
    }
  });
});
