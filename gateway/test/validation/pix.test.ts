import { isValidCnpj, isValidCpf, normalizePixKey } from '../../src/validation/pix';

describe('CPF', () => {
  it.each(['52998224725', '11144477735', '00000000191'])('accepts %s', (cpf) => expect(isValidCpf(cpf)).toBe(true));

  it.each([
    ['52998224724', 'second check digit wrong'],
    ['52998224715', 'first check digit wrong'],
    ['11111111111', 'one repeated digit'],
    ['00000000000', 'zeros'],
    ['5299822472', 'ten digits'],
  ])('refuses %s (%s)', (cpf) => expect(isValidCpf(cpf)).toBe(false));

  it('takes the mask and hands on the digits', () => {
    expect(normalizePixKey('CPF', ' 529.982.247-25 ')).toEqual({ key: '52998224725' });
    expect(normalizePixKey('CPF', '529.982.247-24')).toEqual({ error: expect.stringContaining('check digits') });
    expect(normalizePixKey('CPF', '529.982.247-2a')).toEqual({ error: expect.stringContaining('11 digits') });
  });
});

describe('CNPJ', () => {
  it.each(['11222333000181', '11444777000161', '12ABC34501DE35'])('accepts %s', (cnpj) => expect(isValidCnpj(cnpj)).toBe(true));

  it.each([
    ['11222333000182', 'second check digit wrong'],
    ['11222333000191', 'first check digit wrong'],
    ['00000000000000', 'zeros, whose check digits are right'],
    ['12ABC34501DE36', 'alphanumeric, wrong digit'],
    ['12ABC34501DEA5', 'a letter among the check digits'],
  ])('refuses %s (%s)', (cnpj) => expect(isValidCnpj(cnpj)).toBe(false));

  it('takes the mask and lower-case letters, and hands on the canonical characters', () => {
    expect(normalizePixKey('CNPJ', '11.222.333/0001-81')).toEqual({ key: '11222333000181' });
    expect(normalizePixKey('CNPJ', '12.abc.345/01de-35')).toEqual({ key: '12ABC34501DE35' });
    expect(normalizePixKey('CNPJ', '11.222.333/0001-8')).toEqual({ error: expect.stringContaining('14 characters') });
  });
});

describe('PHONE', () => {
  it('takes a Brazilian mobile number in E.164, separators removed', () => {
    expect(normalizePixKey('PHONE', '+5511987654321')).toEqual({ key: '+5511987654321' });
    expect(normalizePixKey('PHONE', '+55 (11) 98765-4321')).toEqual({ key: '+5511987654321' });
  });

  it.each([
    ['5511987654321', 'no +'],
    ['+14155552671', 'not Brazil'],
    ['+551187654321', 'a landline'],
    ['+5501987654321', 'no area code'],
    ['+55119876543210', 'too long'],
  ])('refuses %s (%s)', (phone) => expect(normalizePixKey('PHONE', phone)).toEqual({ error: expect.stringContaining('E.164') }));
});

describe('EMAIL', () => {
  it('lower-cases the address, as DICT stores it', () => {
    expect(normalizePixKey('EMAIL', ' Pix@Example.COM ')).toEqual({ key: 'pix@example.com' });
  });

  it('refuses a key longer than 77 characters and what is not an address', () => {
    expect(normalizePixKey('EMAIL', `${'a'.repeat(66)}@example.com`)).toEqual({ error: expect.stringContaining('77') });
    expect(normalizePixKey('EMAIL', `${'a'.repeat(65)}@example.com`)).toEqual({ key: `${'a'.repeat(65)}@example.com` });
    for (const bad of ['pix.example.com', 'pix@', '@example.com', 'pix@exa mple.com']) {
      expect(normalizePixKey('EMAIL', bad)).toEqual({ error: 'must be an e-mail address' });
    }
  });
});

describe('EVP', () => {
  it('takes a UUID in any case and hands it on lower-cased', () => {
    expect(normalizePixKey('EVP', '123E4567-E89B-12D3-A456-426614174000')).toEqual({ key: '123e4567-e89b-12d3-a456-426614174000' });
  });

  it.each(['123e4567e89b12d3a456426614174000', '123e4567-e89b-12d3-a456-42661417400', 'g23e4567-e89b-12d3-a456-426614174000'])(
    'refuses %s',
    (evp) => expect(normalizePixKey('EVP', evp)).toEqual({ error: expect.stringContaining('UUID') }),
  );
});
