import { limitKeyOf } from '../../src/domain/catalog';
import { maskSecret } from '../../src/domain/records';
import { identityKey } from '../../src/domain/tenant-update';
import { parseId } from '../../src/domain/validation';

describe('maskSecret', () => {
  it('shows only the last four characters of a long secret, nothing of a short one', () => {
    expect(maskSecret('whsec-0123456789abcd')).toBe('****abcd');
    expect(maskSecret('short-secr1')).toBe('****');
    expect(maskSecret('')).toBe('');
  });
});

describe('parseId', () => {
  it.each([
    ['12', 12],
    ['2147483647', 2147483647],
  ])('accepts %p', (raw, id) => expect(parseId(raw)).toBe(id));

  it.each(['', '0', '-3', '12.5', '1e3', 'abc', ' 7', '2147483648', '{"id":1}'])('rejects %p', (raw) =>
    expect(parseId(raw)).toBeUndefined(),
  );
});

describe('identityKey', () => {
  it('reads a CPF/CNPJ with or without punctuation as the same key', () => {
    expect(identityKey('12.345.678/0001-90')).toBe(identityKey('12345678000190'));
    expect(identityKey(' 123.456.789-09 ')).toBe('12345678909');
  });
});

describe('limitKeyOf', () => {
  it('counts whatsapp as engine_a, waba under waba, the social channels under their oauth types', () => {
    expect(limitKeyOf('whatsapp')).toBe('engine_a');
    expect(limitKeyOf('waba')).toBe('waba');
    expect(limitKeyOf('social_b')).toBe('social_b_oauth');
  });
});
