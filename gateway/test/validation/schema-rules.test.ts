import Fastify from 'fastify';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { installErrorHandler } from '../../src/errors';
import { boundedValidatorCompiler } from '../../src/validation/compiler';
import { pointerOf, rule, RULES_KEYWORD } from '../../src/validation/rules';

/** Cross-field rules inside the route's schema (`x-rules`), run by the gateway's one validator. */
describe('x-rules', () => {
  const app = Fastify();
  app.setValidatorCompiler(boundedValidatorCompiler());
  installErrorHandler(app);
  const Item = Type.Object(
    { kind: Type.String({ maxLength: 10 }), url: Type.Optional(Type.String({ maxLength: 100 })) },
    rule('test.item', (i) => (i.kind === 'link' && !i.url ? [{ field: 'url', message: 'is required for a link' }] : [])),
  );
  const Body = Type.Object(
    {
      a: Type.Optional(Type.Integer({ maximum: 5 })),
      b: Type.Optional(Type.Integer()),
      code: Type.Optional(Type.String({ maxLength: 20 })),
      items: Type.Optional(Type.Array(Item, { maxItems: 5 })),
    },
    rule('test.aOrB', (body) => {
      if (typeof body.code === 'string') body.code = body.code.trim().toUpperCase();
      return body.a === undefined && body.b === undefined ? [{ field: 'a', message: 'send a or b' }] : [];
    }),
  );
  app.post('/v', { schema: { body: Body } }, async (req) => ({ success: true, body: req.body }));
  const post = (payload: object) => app.inject({ method: 'POST', url: '/v', payload });
  afterAll(() => app.close());

  it('refuses what the rule refuses, in the error envelope, naming the field', async () => {
    const res = await post({});
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, error: 'ERR_VALIDATION', details: [{ field: 'a', message: 'send a or b' }] });
  });

  it("names fields of nested objects by their path, the rule's own field appended", async () => {
    const res = await post({ a: 1, items: [{ kind: 'text' }, { kind: 'link' }] });
    expect(res.json().details).toEqual([{ field: 'items[1].url', message: 'is required for a link' }]);
  });

  it("reports the rule's errors with the schema's, all at once", async () => {
    const res = await post({ items: [{ kind: 'link' }, { kind: 'x'.repeat(11) }] });
    expect(res.json().details).toEqual(
      expect.arrayContaining([
        { field: 'a', message: 'send a or b' },
        { field: 'items[0].url', message: 'is required for a link' },
        { field: 'items[1].kind', message: 'must NOT have more than 10 characters' },
      ]),
    );
    expect(res.json().details).toHaveLength(3);
  });

  it('hands on what the rule rewrote to its canonical form', async () => {
    expect((await post({ b: 2, code: '  ab ' })).json().body).toEqual({ b: 2, code: 'AB' });
  });

  it('refuses two different rules under one name, and a schema naming an unknown rule', async () => {
    expect(() => rule('test.aOrB', () => [])).toThrow(/Two rules named test.aOrB/);
    const other = Fastify();
    other.setValidatorCompiler(boundedValidatorCompiler());
    other.post('/u', { schema: { body: Type.Object({}, { [RULES_KEYWORD]: 'test.none' }) } }, async () => ({}));
    await expect(other.ready()).rejects.toThrow(/Unknown validation rule test.none/);
    await other.close();
  });

  it('writes fields as JSON Pointers', () => {
    expect(pointerOf('buttons[0].id')).toBe('/buttons/0/id');
    expect(pointerOf('a/b~c')).toBe('/a~1b~0c');
  });
});

describe('one validation path', () => {
  it('leaves no hand-written validation in the route handlers: every request rule is in a route schema', () => {
    const dir = join(__dirname, '..', '..', 'src', 'routes');
    const handwritten = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .filter((f) => /\bvalidation\(/.test(readFileSync(join(dir, f), 'utf8')));
    expect(handwritten).toEqual([]);
  });
});
