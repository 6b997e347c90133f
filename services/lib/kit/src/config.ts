// Configuration is read once at start; every problem is reported together and the process
// refuses to start, instead of failing on first use.

import { isIP } from 'node:net';

export class ConfigError extends Error {}

/** The shortest secret (token, signing key, mesh secret) a process accepts. */
export const MIN_SECRET_LENGTH = 16;

/** The process environment: taken here, the package's config module, and passed to or defaulted by the rest. */
export const processEnv: NodeJS.ProcessEnv = process.env;

/**
 * Production is NODE_ENV=production, which the container images set; everything else (npm start,
 * tests) is development, where loopback defaults are right.
 */
export const isProduction = (env: NodeJS.ProcessEnv = processEnv): boolean => env.NODE_ENV === 'production';

/**
 * Hosts no one else can reach: loopback, the unspecified address, `localhost`, and the reserved
 * `.invalid` / `.localhost` names (RFC 6761), which placeholders use.
 */
export function isLocalOnlyHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'invalid' || host.endsWith('.invalid')) return true;
  if (isIP(host) === 4) return host.startsWith('127.') || host === '0.0.0.0';
  if (isIP(host) === 6) return host === '::1' || host === '::' || /^::ffff:(127\.|0\.0\.0\.0$)/.test(host) || /^::ffff:7f/.test(host);
  return false;
}

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: NodeJS.ProcessEnv = processEnv) {}

  str(name: string, fallback?: string): string {
    const raw = this.env[name];
    if (raw !== undefined) return raw;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  /**
   * A secret (token, signing key) of at least 16 characters. In production it must be set; in
   * development an unset one is `devFallback()` (npm start generates each and keeps it in `.data/`),
   * never one derived from another secret.
   */
  secret(name: string, devFallback?: () => string): string {
    const raw = this.env[name] ?? '';
    if (!raw) {
      if (devFallback && !isProduction(this.env)) return devFallback();
      this.problems.push(
        `${name} is required${devFallback ? ' in production' : ''}: a secret of its own, at least ${MIN_SECRET_LENGTH} characters`,
      );
      return '';
    }
    if (raw.length < MIN_SECRET_LENGTH) this.problems.push(`${name} must have at least ${MIN_SECRET_LENGTH} characters`);
    return raw;
  }

  /** Two of these secrets being equal is a problem: each is its own, so that one leaked opens nothing else. */
  independent(secrets: Record<string, string>): void {
    const entries = Object.entries(secrets).filter(([, v]) => v);
    for (let i = 0; i < entries.length; i++) {
      for (let j = i + 1; j < entries.length; j++) {
        if (entries[i][1] === entries[j][1]) this.problems.push(`${entries[i][0]} and ${entries[j][0]} must be different secrets`);
      }
    }
  }

  int(name: string, fallback?: number): number {
    const raw = this.env[name];
    if (raw === undefined || raw === '') {
      if (fallback !== undefined) return fallback;
      this.problems.push(`${name} is required`);
      return 0;
    }
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) this.problems.push(`${name} must be a non-negative integer, got "${raw}"`);
    return n;
  }

  /**
   * An absolute http(s) URL that other systems use to reach this installation (providers fetching
   * media, for one). In development an unset value is `devFallback`; in production (NODE_ENV=
   * production) it must be set, and not to a host only this machine or pod can reach.
   */
  publicUrl(name: string, devFallback: string): string {
    const raw = this.env[name] ?? '';
    const production = isProduction(this.env);
    if (!raw) {
      if (!production) return devFallback;
      this.problems.push(`${name} is required in production: the public http(s) base URL others reach this installation at`);
      return '';
    }
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      this.problems.push(`${name} must be an absolute http(s) URL, got "${raw}"`);
      return raw;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      this.problems.push(`${name} must be an http(s) URL, got "${raw}"`);
    } else if (production && isLocalOnlyHost(url.hostname)) {
      this.problems.push(
        `${name}=${raw} is reachable only from this machine or pod (or a placeholder); in production set the public URL of the gateway`,
      );
    }
    return raw;
  }

  /** Throws one error listing every problem met so far. */
  done(): void {
    if (this.problems.length) throw new ConfigError(`Invalid configuration: ${this.problems.join('; ')}`);
  }
}
