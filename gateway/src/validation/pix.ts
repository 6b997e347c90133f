/**
 * PIX keys as the Central Bank's directory (DICT) defines them: the key type names the format, and
 * the key is stored in one canonical spelling. A key is accepted the way people write it (CPF and
 * CNPJ masks, a phone number with spaces or dashes, an e-mail or EVP in any case) and handed on in
 * that canonical spelling, which is what the contact's bank looks up.
 */

export const PIX_TYPES = ['EVP', 'CPF', 'CNPJ', 'EMAIL', 'PHONE'] as const;
export type PixType = (typeof PIX_TYPES)[number];

/** DICT stores keys of at most 77 characters (an e-mail is the only type that can get near it). */
export const PIX_KEY_MAX = 77;

export type PixKeyCheck = { key: string } | { error: string };

export function normalizePixKey(type: PixType, raw: string): PixKeyCheck {
  const input = raw.trim();
  switch (type) {
    case 'CPF': {
      const key = input.replace(/[.\-\s]/g, '');
      if (!/^\d{11}$/.test(key)) return { error: 'must be a CPF: 11 digits, with or without the 000.000.000-00 mask' };
      return isValidCpf(key) ? { key } : { error: 'is not a valid CPF (check digits)' };
    }
    case 'CNPJ': {
      const key = input.replace(/[.\-/\s]/g, '').toUpperCase();
      if (!/^[0-9A-Z]{12}\d{2}$/.test(key)) return { error: 'must be a CNPJ: 14 characters, with or without the 00.000.000/0000-00 mask' };
      return isValidCnpj(key) ? { key } : { error: 'is not a valid CNPJ (check digits)' };
    }
    case 'PHONE': {
      const key = input.replace(/[\s().-]/g, '');
      return /^\+55[1-9]{2}9\d{8}$/.test(key)
        ? { key }
        : { error: 'must be a Brazilian mobile number in E.164 with +, e.g. +5511987654321' };
    }
    case 'EMAIL': {
      const key = input.toLowerCase();
      if (key.length > PIX_KEY_MAX) return { error: `must be at most ${PIX_KEY_MAX} characters` };
      return EMAIL.test(key) ? { key } : { error: 'must be an e-mail address' };
    }
    case 'EVP': {
      const key = input.toLowerCase();
      return EVP.test(key) ? { key } : { error: 'must be a random key (EVP): a UUID such as 123e4567-e89b-12d3-a456-426614174000' };
    }
  }
}

// DICT's own patterns (bacen/pix-dict-api schemas.yaml), applied to the lower-cased key.
const EMAIL = /^[a-z0-9.!#$&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Mod 11 with weights 10..2 then 11..2; a remainder of 10 counts as 0. One repeated digit is never a CPF. */
export function isValidCpf(digits: string): boolean {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return false;
  const d = [...digits].map(Number);
  const dv = (n: number) => {
    const sum = d.slice(0, n).reduce((acc, x, i) => acc + x * (n + 1 - i), 0);
    return ((sum * 10) % 11) % 10;
  };
  return dv(9) === d[9] && dv(10) === d[10];
}

const CNPJ_WEIGHTS = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

/**
 * Mod 11 over the character values (ASCII code − 48, so digits are themselves and A = 17): this
 * also checks the alphanumeric CNPJs issued from July 2026 (IN RFB 2.229/2024), whose first 12
 * characters may be letters. One repeated character is never a CNPJ.
 */
export function isValidCnpj(chars: string): boolean {
  if (!/^[0-9A-Z]{12}\d{2}$/.test(chars) || /^(.)\1{13}$/.test(chars)) return false;
  const v = [...chars].map((c) => c.charCodeAt(0) - 48);
  const dv = (n: number) => {
    const weights = CNPJ_WEIGHTS.slice(CNPJ_WEIGHTS.length - n);
    const rest = v.slice(0, n).reduce((acc, x, i) => acc + x * weights[i], 0) % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  return dv(12) === v[12] && dv(13) === v[13];
}
