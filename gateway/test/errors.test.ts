import { notFound, toGrpcError, validation } from '@convo/kit';
import * as grpc from '@grpc/grpc-js';
import Fastify from 'fastify';
import Type from 'typebox';
import { AJV_OPTIONS, fieldOf, installErrorHandler } from '../src/errors';
import { formatGatewayError } from '../src/dashboard/graphql-errors';

describe('fieldOf', () => {
  it('names nested and missing fields the way an integrator writes them', () => {
    expect(fieldOf({ instancePath: '/buttons/0/id' })).toBe('buttons[0].id');
    expect(fieldOf({ instancePath: '', params: { missingProperty: 'ticketId' } })).toBe('ticketId');
    expect(fieldOf({ instancePath: '/list', params: { missingProperty: 'title' } })).toBe('list.title');
    expect(fieldOf({ instancePath: '' })).toBe('(body)');
  });
});

describe('error envelope', () => {
  const app = Fastify({ ajv: AJV_OPTIONS });
  installErrorHandler(app);
  app.post('/v', { schema: { body: Type.Object({ a: Type.Integer(), b: Type.String({ minLength: 2 }) }) } }, async () => ({}));
  app.post('/domain', async () => {
    throw validation('Bad thing', [{ field: 'x', message: 'is wrong' }]);
  });
  app.post('/grpc', async () => {
    const s = toGrpcError(notFound('ticket'));
    throw Object.assign(new Error(s.details), { code: s.code, details: s.details, metadata: s.metadata });
  });
  app.post('/down', async () => {
    throw Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
      code: grpc.status.UNAVAILABLE,
      details: 'No connection established',
      metadata: new grpc.Metadata(),
    });
  });
  app.post('/boom', async () => {
    throw new Error('internal detail');
  });

  const post = (url: string, payload: Record<string, unknown> = {}) => app.inject({ method: 'POST', url, payload });

  it('answers schema failures with 400 ERR_VALIDATION and the fields', async () => {
    const res = await post('/v', { b: 'x' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: 'ERR_VALIDATION' });
    expect(
      res
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('maps domain errors raised in the facade', async () => {
    const res = await post('/domain');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: 'ERR_VALIDATION',
      message: 'Bad thing',
      details: [{ field: 'x', message: 'is wrong' }],
    });
  });

  it('maps gRPC statuses through the table', async () => {
    const res = await post('/grpc');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'ERR_TICKET_NOT_FOUND', message: 'Ticket not found' });
    expect(grpc.status.NOT_FOUND).toBe(5);
  });

  it('answers an unreachable service 503 ERR_UNAVAILABLE with Retry-After', async () => {
    const res = await post('/down');
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toMatchObject({ success: false, error: 'ERR_UNAVAILABLE' });
    expect((await post('/grpc')).headers['retry-after']).toBeUndefined();
  });

  it('hides unexpected errors behind 500 ERR_INTERNAL', async () => {
    const res = await post('/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ success: false, error: 'ERR_INTERNAL', message: 'Internal error' });
  });

  it('answers unknown routes with the envelope', async () => {
    const res = await app.inject({ method: 'GET', url: '/nope?x=1' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'ERR_ROUTE_NOT_FOUND', message: 'No route GET /nope' });
  });
});

describe('GraphQL errors of the gateway', () => {
  it('answers an operation the schema refuses (a value outside an enum) with ERR_VALIDATION', () => {
    for (const code of ['GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'GRAPHQL_PARSE_FAILED']) {
      expect(
        formatGatewayError({ message: 'Value "sleeping" does not exist in "TenantStatus" enum.', extensions: { code } }).extensions?.code,
      ).toBe('ERR_VALIDATION');
    }
  });

  it("keeps the subgraphs' and the limits' own codes", () => {
    for (const code of ['ERR_TICKET_NOT_FOUND', 'ERR_QUERY_TOO_COMPLEX', 'ERR_FORBIDDEN']) {
      expect(formatGatewayError({ message: 'x', extensions: { code } }).extensions?.code).toBe(code);
    }
  });
});
