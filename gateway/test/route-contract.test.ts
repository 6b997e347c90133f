import swagger from '@fastify/swagger';
import { notFound } from '@convo/kit';
import Fastify from 'fastify';
import Type from 'typebox';
import { installErrorHandler } from '../src/errors';
import { SWAGGER_OPTIONS } from '../src/openapi/document';
import { sendAnswersAsReturned } from '../src/plain-answers';
import { Envelope, Exact } from '../src/schemas/envelopes';
import { widgetRoutes } from './fixtures/widget.routes';

type Json = Record<string, any>;

// Adding a REST route touches its route file and its schema file (test/fixtures/widget.*.ts here):
// the document generator (openapi/document.ts) adds the operationId, the named components and the
// error answers by itself.
describe('a route registered with its schema', () => {
  let doc: Json;
  beforeAll(async () => {
    const app = Fastify();
    sendAnswersAsReturned(app);
    await app.register(swagger, SWAGGER_OPTIONS);
    await app.register(widgetRoutes, { prefix: '/v2/api/external/:apiId' });
    await app.ready();
    doc = JSON.parse(JSON.stringify(app.swagger())) as Json;
    await app.close();
  });

  it('is in the document with its summary, request, 200 schema and error answers', () => {
    const op = doc.paths['/v2/api/external/{apiId}/showWidget'].post;
    expect(op).toMatchObject({ operationId: 'showWidget', summary: 'One widget by id', tags: ['widgets'], security: [{ bearer: [] }] });
    expect(op.requestBody.content['application/json'].schema.properties.widgetId).toMatchObject({ type: 'integer', minimum: 1 });
    expect(op.responses['200']).toEqual({
      description: 'Success',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/WidgetResult' } } },
    });
    for (const [status, name] of Object.entries({
      '400': 'ValidationError',
      '401': 'Unauthorized',
      '403': 'Forbidden',
      '404': 'NotFound',
      '429': 'RateLimited',
      '503': 'Unavailable',
      default: 'Error',
    })) {
      expect(op.responses[status]).toEqual({ $ref: `#/components/responses/${name}` });
    }
    expect(doc.components.responses.NotFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorEnvelope' });
  });

  it('names its answer and the record inside it as components, written once', () => {
    const { WidgetResult, Widget, ErrorEnvelope } = doc.components.schemas;
    expect(WidgetResult.properties.data).toEqual({ $ref: '#/components/schemas/Widget' });
    expect(WidgetResult.examples).toEqual([{ success: true, data: { id: 7, name: 'Gear', color: null } }]);
    expect(Widget).toMatchObject({ type: 'object', additionalProperties: false, required: ['id', 'name', 'color'] });
    expect(Widget.properties.color).toEqual({ type: ['string', 'null'], description: 'null when it has none' });
    expect(JSON.stringify(doc.components.schemas)).not.toContain('$id');
    expect(ErrorEnvelope.required).toEqual(['success', 'error', 'message']);
  });
});

describe('an answer', () => {
  it('is sent as its handler returns it, not rewritten by its response schema', async () => {
    const app = Fastify();
    sendAnswersAsReturned(app);
    const Answer = Envelope(Exact({ id: Type.Integer(), name: Type.String() }));
    // A field the schema does not list, in another order than the schema's, of another type: as returned.
    app.get('/thing', { schema: { response: { 200: Answer } } }, async () => ({
      data: { name: 'x', id: '7', extra: true },
      success: true,
    }));
    const res = await app.inject({ method: 'GET', url: '/thing' });
    expect(res.body).toBe('{"data":{"name":"x","id":"7","extra":true},"success":true}');
    await app.close();
  });

  it('of an error is the envelope a route without a response schema answers', async () => {
    const app = Fastify();
    sendAnswersAsReturned(app);
    installErrorHandler(app);
    const fail = async () => {
      throw notFound('widget');
    };
    app.get('/declared', { schema: { response: { 200: Envelope(Exact({ id: Type.Integer() })) } } }, fail);
    app.get('/undeclared', fail);
    const [declared, undeclared] = await Promise.all([app.inject({ url: '/declared' }), app.inject({ url: '/undeclared' })]);
    expect(declared.statusCode).toBe(404);
    expect(JSON.parse(declared.body)).toMatchObject({ success: false, error: 'ERR_WIDGET_NOT_FOUND' });
    expect(declared.body).toBe(undeclared.body);
    expect(declared.headers['content-type']).toBe(undeclared.headers['content-type']);
    await app.close();
  });
});
