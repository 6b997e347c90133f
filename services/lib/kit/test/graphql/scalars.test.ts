import { Kind } from 'graphql';
import { DateTime, JSONScalar } from '../../src/graphql/scalars';

describe('DateTime', () => {
  it('answers Dates and ISO strings as ISO 8601 in UTC', () => {
    expect(DateTime.serialize(new Date(Date.UTC(2026, 10, 25, 20, 2, 52, 955)))).toBe('2026-11-25T20:02:52.955Z');
    expect(DateTime.serialize('2026-11-25T17:02:52.955-03:00')).toBe('2026-11-25T20:02:52.955Z');
  });

  it('refuses what is not an instant, rather than inventing one', () => {
    for (const bad of ['', 'yesterday', 42, null, {}]) expect(() => DateTime.serialize(bad)).toThrow('DateTime cannot represent');
    expect(() => DateTime.parseValue('not a date')).toThrow('ISO 8601');
    expect(() => DateTime.parseLiteral({ kind: Kind.INT, value: '1' })).toThrow('ISO 8601');
    expect(DateTime.parseLiteral({ kind: Kind.STRING, value: '2026-11-25T20:00:00Z' })).toBe('2026-11-25T20:00:00.000Z');
  });
});

describe('JSON', () => {
  it('answers stored JSON text parsed, and other values as they are', () => {
    expect(JSONScalar.serialize('{"event":"message","data":{"n":1}}')).toEqual({ event: 'message', data: { n: 1 } });
    expect(JSONScalar.serialize('not json')).toBe('not json');
    expect(JSONScalar.serialize({ a: 1 })).toEqual({ a: 1 });
    expect(
      JSONScalar.parseLiteral({
        kind: Kind.OBJECT,
        fields: [{ kind: Kind.OBJECT_FIELD, name: { kind: Kind.NAME, value: 'a' }, value: { kind: Kind.INT, value: '1' } }],
      }),
    ).toEqual({ a: 1 });
  });
});
