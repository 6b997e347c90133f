import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a tenant administrator's session token carries. */
export interface TenantSession {
  tenantId: number;
  userId: number;
  /** The credentials it was opened with (the tenants service's credentials version). */
  version: string;
  /** Unix seconds. */
  exp: number;
}

const PREFIX = 'cs1.';

/**
 * Short-lived sessions of tenant administrators (console sign-in), signed with HMAC-SHA256 so
 * any gateway replica holding the same secret verifies them without a database read; whether the
 * session still stands (tenant active, user there, same password) is SessionStatus's question.
 * Shape: `cs1.<base64url JSON>.<base64url HMAC>`; nothing secret is inside, only ids, the
 * credentials version and expiry.
 */
export class SessionSigner {
  constructor(
    private readonly secret: string,
    readonly ttlSeconds: number,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  sign(tenantId: number, userId: number, version: string): { token: string; expiresAt: Date } {
    const exp = this.now() + this.ttlSeconds;
    const payload = Buffer.from(JSON.stringify({ t: tenantId, u: userId, v: version, exp })).toString('base64url');
    return { token: `${PREFIX}${payload}.${this.mac(payload)}`, expiresAt: new Date(exp * 1000) };
  }

  /** The session of a valid, unexpired token; undefined for anything else. */
  verify(token: string): TenantSession | undefined {
    if (!token.startsWith(PREFIX)) return undefined;
    const [payload, mac] = token.slice(PREFIX.length).split('.');
    if (!payload || !mac) return undefined;
    const want = Buffer.from(this.mac(payload));
    const got = Buffer.from(mac);
    if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
    try {
      const { t, u, v, exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Number.isInteger(t) || !Number.isInteger(u) || typeof v !== 'string' || !Number.isInteger(exp) || exp <= this.now())
        return undefined;
      return { tenantId: t, userId: u, version: v, exp };
    } catch {
      return undefined;
    }
  }

  static looksLikeSession(token: string): boolean {
    return token.startsWith(PREFIX);
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.secret).update(`${PREFIX}${payload}`).digest('base64url');
  }
}
