import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets (tokens, signatures) in time that does not depend on where they differ;
 * different lengths are simply unequal. The one comparison every secret check uses.
 */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const x = typeof a === 'string' ? Buffer.from(a) : a;
  const y = typeof b === 'string' ? Buffer.from(b) : b;
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether an Authorization header is `Bearer <token>` (case-insensitive scheme), compared as a secret. */
export const bearerMatches = (header: string | undefined, token: string): boolean =>
  safeEqual(header && /^bearer /i.test(header) ? header.slice(7) : '', token);

/** A URL with its password masked (`smtp://user:***@host`): a webmail channel's engine URL carries a credential. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** How integration tokens are stored and looked up (hex SHA-256): tenants writes it, the gateway resolves by it. */
export const tokenSha256 = (token: string): string => createHash('sha256').update(token).digest('hex');
