import type { Mesh } from '@convo/dev-mesh';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { answerChecker } from '../support/answer-check';
import { call, UNPACED, type Reply } from '../support/http';
import { startNetworkEngine, type NetworkEngine } from '../support/network-engine';

const { startMesh } = require('../support/shared-mesh') as typeof import('../support/shared-mesh');

/**
 * Requests as public clients send them (CRM back-ends, chatbot workers, generated clients), the
 * OpenAPI document a client is generated from, and 405 for a wrong method: through the REST facade
 * of the real mesh.
 */
describe('what real clients send, end to end', () => {
  let mesh: Mesh;
  let engine: NetworkEngine;
  let admin: string;
  const crashes: string[] = [];
  let seq = 0;
  const newNumber = () => `55119${String(50_000_000 + ++seq)}`;

  const as = (path: string, body?: unknown, method?: string) => call(`${mesh.gatewayUrl}${path}`, { token: admin, body, method });
  const expectError = (res: Reply, status: number, error: string) => {
    expect({ status: res.status, error: res.body?.error }).toEqual({ status, error });
    expect(res.body).toMatchObject({ success: false, message: expect.any(String) });
  };

  async function newTenant() {
    const res = await as('/tenantApiStoreTenant', {
      status: 'active',
      name: 'Acme',
      maxUsers: 10,
      maxConnections: 10,
      acceptTerms: true,
      email: `owner-${++seq}@clients.example`,
      password: 'S3cure!pass',
      userName: 'Ana',
      profile: 'admin',
    });
    expect(res.status).toBe(200);
    return res.body.data;
  }
  async function newSession(tenant: number, fields: Record<string, unknown>) {
    const res = await as('/tenantApiCreateSession', { tenant, name: `${fields.type} channel`, ...fields });
    expect(res.status).toBe(200);
    return res.body.data;
  }
  const engineFields = () => ({ type: 'engine_a', engineUrl: engine.url, engineToken: 'engine-secret' });
  const wabaFields = () => ({ type: 'waba', tokenAPI: `55119${++seq}0000`, wabaId: `waba-${seq}`, bmToken: 'bm-secret-token' });

  beforeAll(async () => {
    engine = await startNetworkEngine();
    mesh = await startMesh({
      freePorts: true,
      env: UNPACED,
      onLine: () => undefined,
      onCrash: (part, code) => crashes.push(`${part}:${code}`),
    });
    admin = mesh.superAdminToken;
  });

  afterAll(async () => {
    await mesh?.stop();
    await engine?.close();
  });

  afterEach(() => expect(crashes).toEqual([]));

  describe('request shapes', () => {
    it('tenantApiStoreTenant and tenantApiCreateSession answer the new id at data.id too', async () => {
      const tenant = await newTenant();
      expect(tenant.id).toEqual(expect.any(Number));
      expect(tenant.id).toBe(tenant.tenant.id);
      const session = await newSession(tenant.id, engineFields());
      expect(session.id).toEqual(expect.any(Number));
      expect(session.id).toBe(session.whatsapp.id);
    });

    it('createTicket takes queueId: null and chatFlowId: null as not set', async () => {
      const tenant = await newTenant();
      const { api } = await newSession(tenant.id, engineFields());
      const res = await call(`${mesh.gatewayUrl}/v2/api/external/${api.apiId}/createTicket`, {
        token: api.authToken,
        body: { number: `+${newNumber()}`, body: 'Hello', queueId: null, chatFlowId: null },
      });
      expect(res.status).toBe(200);
      expect(res.body.data.ticket).toMatchObject({ queueId: null, chatFlowId: null, status: expect.any(String) });
    });

    it('sendButtonWABA with a fourth button is a 400 naming it, and nothing is sent', async () => {
      const tenant = await newTenant();
      const { api } = await newSession(tenant.id, wabaFields());
      const res = await call(`${mesh.gatewayUrl}/v2/api/external/${api.apiId}/sendButtonWABA`, {
        token: api.authToken,
        body: { number: `+${newNumber()}`, message: 'Pick one', button1: 'A', button2: 'B', button3: 'C', button4: 'D' },
      });
      expectError(res, 400, 'ERR_VALIDATION');
      expect(res.body.details).toEqual([{ field: 'button4', message: expect.stringContaining('at most 3') }]);
    });

    it('a waba channel as the transport of a coexistence link is ERR_HYBRID_COEXISTENCE_LINKED_TYPE', async () => {
      const tenant = await newTenant();
      const other = await newSession(tenant.id, wabaFields());
      const linked = await newSession(tenant.id, { ...wabaFields(), hybridMode: 'coexistence', linkedChannelId: other.whatsapp.id });
      expect(linked.hybrid).toEqual({ applied: false, error: 'ERR_HYBRID_COEXISTENCE_LINKED_TYPE' });
      const edited = await as(`/whatsapp/${linked.whatsapp.id}`, { hybridMode: 'coexistence', linkedChannelId: other.whatsapp.id }, 'PUT');
      expect(edited.body.data.hybrid).toEqual({ applied: false, error: 'ERR_HYBRID_COEXISTENCE_LINKED_TYPE' });
    });
  });

  describe('methods', () => {
    it('a known path with a wrong method is 405 with Allow; an unknown path stays 404', async () => {
      const wrong = await fetch(`${mesh.gatewayUrl}/v2/api/external/some-api/createTicket`, { method: 'GET' });
      expect({ status: wrong.status, allow: wrong.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
      expect(await wrong.json()).toMatchObject({ success: false, error: 'ERR_METHOD_NOT_ALLOWED' });
      const webchat = await fetch(`${mesh.gatewayUrl}/webchat/1/messages`, { method: 'DELETE' });
      expect({ status: webchat.status, allow: webchat.headers.get('allow') }).toEqual({ status: 405, allow: 'GET, HEAD, POST' });
      expectError(await call(`${mesh.gatewayUrl}/v2/api/external/some-api/noSuchOperation`, { body: {} }), 404, 'ERR_ROUTE_NOT_FOUND');
    });
  });

  describe('OpenAPI document', () => {
    const dir = join(__dirname, '..', 'openapi-client');
    const generated = join(dir, 'generated');
    const node = (args: string[]) => {
      try {
        return execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
      } catch (err) {
        const e = err as { stdout?: string; stderr?: string };
        throw new Error(`node ${args[0]}: ${e.stdout ?? ''}${e.stderr ?? ''}`);
      }
    };
    let doc: any;
    beforeAll(async () => {
      doc = (await call(`${mesh.gatewayUrl}/docs/json`)).body;
    });

    it('is a valid OpenAPI 3.1 document with an operationId, a tag and answers per operation, and no GraphQL', async () => {
      // Both tools are ES modules, which jest's CommonJS runtime cannot load: they run as Node.
      mkdirSync(generated, { recursive: true });
      writeFileSync(join(generated, 'openapi.json'), JSON.stringify(doc));
      const validate = "import P from '@apidevtools/swagger-parser'; await P.validate(process.argv[1]); console.log('valid');";
      expect(node(['--input-type=module', '-e', validate, join(generated, 'openapi.json')])).toContain('valid');
      expect(doc.openapi).toBe('3.1.0');
      const ops = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) =>
        Object.entries(item).map(([method, op]: [string, any]) => ({ path, method, op })),
      );
      expect(ops.length).toBeGreaterThanOrEqual(64);
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/graphql') || p === '/healthz' || p === '/readyz')).toEqual([]);
      const ids = ops.map(({ op }) => op.operationId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(
        expect.arrayContaining([
          'createTicket',
          'listTickets',
          'sendButtonWABA',
          'tenantApiStoreTenant',
          'tenantApiCreateSession',
          'ticketPauseStart',
        ]),
      );
      for (const { op } of ops) {
        expect(op.tags.length).toBeGreaterThan(0);
        expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', 'default']));
      }
      expect(doc.components.schemas.ErrorEnvelope.examples).toHaveLength(1);
      // Every operation says what its success answers: none falls back to the untyped envelope.
      const untyped = ops
        .filter(({ op }) => !op.responses['200'].content['text/plain'])
        .filter(({ op }) => op.responses['200'].content['application/json'].schema.$ref === '#/components/schemas/Success')
        .map(({ op }) => op.operationId);
      expect(untyped).toEqual([]);
      expect(doc.paths['/v2/api/external/{apiId}/createTicket'].post.responses['200'].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/CreateTicketResult',
      });
    });

    it('checks every answer the suite receives against the document, and refuses one that drifts from it', async () => {
      const check = (await answerChecker(mesh.gatewayUrl))!;
      expect(check).toBeDefined();
      const path = '/v2/api/external/abc/showTicketById';
      const ticket = {
        id: 1,
        ticketId: 1,
        status: 'open',
        whatsappId: 2,
        contact: { id: 3, number: '5511999990000', name: 'Ana', email: null },
        tagIds: [],
        createdAt: 'x',
        updatedAt: 'x',
        paused: false,
        evaluation: null,
      };
      expect(check('POST', path, 200, { success: true, data: ticket })).toBeUndefined();
      expect(check('POST', path, 200, { success: true, data: { ...ticket, status: 'archived' } })).toContain('/data/status');
      expect(check('POST', path, 200, { success: true, data: { ...ticket, secret: 'x' } })).toContain('additional properties');
      expect(check('POST', path, 404, { success: false, error: 'ERR_TICKET_NOT_FOUND', message: 'Ticket not found' })).toBeUndefined();
      expect(check('POST', path, 404, { error: 'not found' })).toContain('ErrorEnvelope');
    });

    it('generates a typed client that type-checks sample calls (three of them routes beyond the seed) and runs them against the gateway', async () => {
      node([
        join(dirname(require.resolve('openapi-typescript')), '..', 'bin', 'cli.js'),
        join(generated, 'openapi.json'),
        '-o',
        join(generated, 'api.ts'),
      ]);
      // tsc fails the test on a type error, including an unused @ts-expect-error (an untyped client).
      node([require.resolve('typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')]);

      const { sampleCalls } = require(join(dir, 'sample-calls')) as { sampleCalls: (o: object) => Promise<Record<string, unknown>> };
      const result = await sampleCalls({
        baseUrl: mesh.gatewayUrl,
        adminToken: admin,
        email: `typed-${++seq}@clients.example`,
        number: newNumber(),
        engineUrl: engine.url,
      });
      expect(result).toEqual({
        tenantId: expect.any(Number),
        channelId: expect.any(Number),
        ticketId: expect.any(Number),
        status: 'open',
        kanban: { name: 'Typed board', position: 1 },
        channels: [{ id: result.channelId, type: 'engine_a' }],
        messages: [{ ticketId: result.ticketId, body: 'Hello from a generated client', direction: 'out' }],
      });
    });
  });
});
