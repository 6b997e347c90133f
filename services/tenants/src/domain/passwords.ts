import { counter, safeEqual } from '@convo/kit';
import { createHash, randomBytes, scrypt as scryptCb } from 'node:crypto';
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

/** Password hashes computed to check a sign-in: one per attempt, whether the e-mail exists or not. */
export const passwordChecks = () =>
  counter({
    name: 'convo_tenants_password_checks_total',
    help: 'Password hashes computed to check a sign-in (one per attempt, known e-mail or not).',
  });

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  passwordChecks().inc();
  const [, salt, key] = stored.split('$');
  const got = await scrypt(password, Buffer.from(salt, 'base64'), 32);
  return safeEqual(got, Buffer.from(key, 'base64'));
}

let dummy: Promise<string> | undefined;

/**
 * A hash of no one's password, made once per process: a sign-in with an unknown e-mail is checked
 * against it, so that it costs the same scrypt work as a known one and its answer time does not
 * tell which e-mails exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummy;
}

/**
 * What a session carries of the password it was opened with: a digest of the stored hash, which
 * changes whenever the password does (a new salt each time) and tells nothing of the password.
 */
export const credentialsVersion = (passwordHash: string): string =>
  createHash('sha256').update(`convo session credentials\0${passwordHash}`).digest('base64url').slice(0, 22);
