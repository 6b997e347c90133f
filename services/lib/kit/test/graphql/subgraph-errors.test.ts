import { buildSchema } from 'graphql';
import { notFound } from '../../src/errors';
import { startSubgraphServer, type SubgraphServer } from '../../src/graphql/subgraph';
import { createLogger } from '../../src/logger';

// What a subgraph answers when a resolver fails: a domain error keeps its code and message; any
// other error (a driver's, a library's, a bug) never shows its message to the client.
describe('subgraph errors', () => {
  const token = 's'.repeat(32);
  let server: SubgraphServer;
  let url: string;

  beforeAll(async () => {
    const schema = buildSchema('type Query { raw: String, domain: String, typeError: String }');
    const root = schema.getQueryType()!.getFields();
    root.raw.resolve = () => {
      throw new Error('E11000 duplicate key error collection: tickets.tickets index: tenantId_1 dup key mongodb://10.0.0.7:27017');
    };
    root.domain.resolve = () => {
      throw notFound('ticket');
    };
    root.typeError.resolve = () => (null as unknown as { x: { y: string } }).x.y;
    server = await startSubgraphServer(schema, 0, { token, log: createLogger('test', 'silent'), host: '127.0.0.1' });
    url = `http://127.0.0.1:${server.port}/graphql`;
  });
  afterAll(() => server.close());

  const ask = async (query: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query }),
    });
    return (await res.json()) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
  };

  it('answers a non-domain error as Internal error, whatever its message', async () => {
    for (const field of ['raw', 'typeError']) {
      const body = await ask(`{ ${field} }`);
      expect(body.errors).toEqual([{ message: 'Internal error', path: [field], extensions: { code: 'ERR_INTERNAL' } }]);
      expect(JSON.stringify(body.errors)).not.toMatch(/E11000|mongodb|Cannot read/);
    }
  });

  it('keeps a domain error code and message', async () => {
    const body = await ask('{ domain }');
    expect(body.errors?.[0]).toMatchObject({ message: 'Ticket not found', extensions: { code: 'ERR_TICKET_NOT_FOUND' } });
  });

  it('answers a request the schema refuses as ERR_VALIDATION, naming the field', async () => {
    const body = await ask('{ nothing }');
    expect(body.errors?.[0]).toMatchObject({ message: expect.stringContaining('nothing'), extensions: { code: 'ERR_VALIDATION' } });
  });
});
