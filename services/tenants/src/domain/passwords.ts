import { safeEqual } from '@convo/kit';
import { randomBytes, scrypt as scryptCb } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** The seed's rule: at least 8 characters, with digits and special characters. */
export function passwordProblems(password: string): string | undefined {
  if (password.length < 8) return 'must have at least 8 characters';
  if (!/\d/.test(password)) return 'must contain a digit';
  if (!/[^A-Za-z0-9]/.test(password)) return 'must contain a special character';
  return undefined;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [, salt, key] = stored.split('$');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), 32);
  return safeEqual(got, Buffer.from(key, 'base64'));
}
