import Fastify from 'fastify';
import Type from 'typebox';
import { installErrorHandler } from '../src/errors';
import { Id } from '../src/schemas/common';
import { boundedValidatorCompiler, hasAtMostNodes } from '../src/validation/compiler';
import { installBoundedJsonParser } from '../src/validation/json-parser';

/** The gateway's validation path (compiler + error handler) on a Fastify app of its own. */
describe('bounded validation', () => {
  const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  app.setValidatorCompiler(boundedValidatorCompiler());
  installErrorHandler(app);
  const Body = Type.Object({
    ticketId: Id(),
    flag: Type.Optional(Type.Boolean()),
    tagIds: Type.Optional(Type.Array(Id(), { maxItems: 50 })),
    many: Type.Optional(
      Type.Object(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, Type.Optional(Type.Integer({ maximum: 5 }))]))),
    ),
  });
  app.post('/v', { schema: { body: Body } }, async (req) => ({ success: true, body: req.body }));
  const post = (payload: unknown) => app.inject({ method: 'POST', url: '/v', payload: payload as object });
  afterAll(() => app.close());

  it('refuses ids beyond int32 instead of wrapping them', async () => {
    for (const ticketId of [4294967297, 2147483648, 1e21, 1.5, 0, -1]) {
      const res = await post({ ticketId });
      expect(res.statusCode).toBe(400);
      expect(res.json().details[0].field).toBe('ticketId');
    }
    expect((await post({ ticketId: 2147483647 })).json().body.ticketId).toBe(2147483647);
  });

  it('keeps booleans and numbers apart, yet takes numbers and booleans written as text', async () => {
    expect((await post({ ticketId: true })).statusCode).toBe(400);
    expect((await post({ ticketId: 1, flag: 1 })).statusCode).toBe(400);
    expect((await post({ ticketId: 1, tagIds: [true] })).statusCode).toBe(400);
    expect((await post({ ticketId: '42', flag: 'true' })).json().body).toEqual({ ticketId: 42, flag: true });
  });

  it('lists at most 20 field errors, then says it truncated', async () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 99]));
    const res = await post({ ticketId: 1, many });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toHaveLength(20);
    expect(res.json().truncated).toBe(true);
    const few = await post({ ticketId: 'x', flag: 'maybe' });
    expect(
      few
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['flag', 'ticketId']);
    expect(few.json().truncated).toBeUndefined();
  });

  it('stops at the first fault of a huge body: a 4,000,000-element array is one small error', async () => {
    const res = await post({ ticketId: 1, tagIds: new Array(4_000_000).fill('x') });
    expect(res.statusCode).toBe(400);
    expect(res.body.length).toBeLessThan(20_000);
    expect(res.json().details).toEqual([{ field: 'tagIds', message: 'must NOT have more than 50 items' }]);
  });

  it('counts nodes lazily', () => {
    expect(hasAtMostNodes({ a: [1, 2, { b: 3 }] }, 10)).toBe(true);
    expect(hasAtMostNodes(new Array(1_000_000).fill(0), 10)).toBe(false);
  });
});

describe('bounded JSON parsing', () => {
  const { exceedsJsonValues, installBoundedJsonParser, MAX_JSON_VALUES } =
    require('../src/validation/json-parser') as typeof import('../src/validation/json-parser');
  const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  installBoundedJsonParser(app);
  installErrorHandler(app);
  app.post('/p', async (req) => ({ success: true, keys: Object.keys(req.body as object) }));
  afterAll(() => app.close());

  it('counts values outside strings only', () => {
    expect(exceedsJsonValues('{"a":"x,y:z","b":[1,2,3]}', 5)).toBe(false);
    expect(exceedsJsonValues('{"a":"x\\",,,,,,","b":[1,2,3]}', 5)).toBe(false);
    expect(exceedsJsonValues('[1,2,3,4,5,6,7]', 5)).toBe(true);
  });

  it('refuses a body with millions of values before parsing it, and parses the others as before', async () => {
    const huge = `{"ticketId":1,"tagIds":[${new Array(4_000_000).fill('"x"').join(',')}]}`;
    const res = await app.inject({ method: 'POST', url: '/p', headers: { 'content-type': 'application/json' }, payload: huge });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      error: 'ERR_VALIDATION',
      details: [{ field: '(body)', message: `must have at most ${MAX_JSON_VALUES} values` }],
    });
    expect(res.body.length).toBeLessThan(20_000);
    const ok = await app.inject({ method: 'POST', url: '/p', payload: { a: 1, b: [1, 2] } });
    expect(ok.json()).toEqual({ success: true, keys: ['a', 'b'] });
    const poisoned = await app.inject({
      method: 'POST',
      url: '/p',
      headers: { 'content-type': 'application/json' },
      payload: '{"__proto__":{"x":1}}',
    });
    expect(poisoned.statusCode).toBe(400);
  });
});

/**
 * A number a double cannot hold: JSON's `1e400` parses to Infinity, and Ajv's coercion turns the
 * text `"1e400"` (a JSON string, a multipart field, a query parameter) into Infinity after its own
 * checks. Either must answer 400 naming the field, never reach a service (whose database refuses
 * it: a 500).
 */
describe('numbers out of a double’s range', () => {
  const app = Fastify();
  app.setValidatorCompiler(boundedValidatorCompiler());
  installBoundedJsonParser(app);
  installErrorHandler(app);
  const Body = Type.Object({
    value: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
    count: Type.Optional(Type.Integer({ minimum: 0 })),
    list: Type.Optional(Type.Array(Type.Number(), { maxItems: 5 })),
    extra: Type.Optional(Type.Object({}, { additionalProperties: true })),
  });
  app.post('/v', { schema: { body: Body, querystring: Type.Object({ n: Type.Optional(Type.Number()) }) } }, async (req) => ({
    success: true,
    body: req.body,
  }));
  app.post('/free', async (req) => ({ success: true, body: req.body }));
  afterAll(() => app.close());
  const post = (payload: string, url = '/v') =>
    app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

  it.each([
    ['a JSON number', '{"value":1e400}', 'value'],
    ['a negative JSON number', '{"value":-1e400}', 'value'],
    ['text coerced to a number', '{"value":"1e400"}', 'value'],
    ['"Infinity" as text', '{"count":"Infinity"}', 'count'],
    ['a list item', '{"list":[1,"1e999"]}', 'list[1]'],
    ['a free-form object', '{"extra":{"deep":{"n":1e400}}}', 'extra.deep.n'],
  ])('refuses %s with 400 ERR_VALIDATION naming the field', async (_what, payload, field) => {
    const res = await post(payload);
    expect({ status: res.statusCode, error: res.json().error, field: res.json().details?.[0]?.field }).toEqual({
      status: 400,
      error: 'ERR_VALIDATION',
      field,
    });
  });

  it('refuses it on a route without a body schema, and in a query parameter', async () => {
    const free = await post('{"a":[1e400]}', '/free');
    expect({ status: free.statusCode, error: free.json().error, field: free.json().details?.[0]?.field }).toEqual({
      status: 400,
      error: 'ERR_VALIDATION',
      field: 'a[0]',
    });
    const query = await app.inject({ method: 'POST', url: '/v?n=1e400', payload: '{}', headers: { 'content-type': 'application/json' } });
    expect(query.statusCode).toBe(400);
  });

  it('still takes large finite numbers and numbers written as text', async () => {
    expect((await post('{"value":"1e12","count":"42","extra":{"n":1.7976931348623157e308}}')).json().body).toEqual({
      value: 1e12,
      count: 42,
      extra: { n: 1.7976931348623157e308 },
    });
  });
});
