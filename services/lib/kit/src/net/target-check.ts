// Webhook and callback URLs are checked when a tenant sets them, with the same rules the delivery
// applies (safe-http): http(s) only, no credentials, and no address outside the public internet
// unless the operator allow-lists it (WEBHOOK_ALLOWED_PRIVATE). A name that does not resolve now
// is accepted: DNS may not be set up yet, and delivery checks the addresses again anyway.

import * as dns from 'node:dns';
import { DomainError } from '../errors';
import { type AllowList, isAddressAllowListed, isHostAllowListed } from './allow-list';
import { classifyAddress, parseIp } from './ip-address';
import { checkUrl, type Resolver } from './safe-http';

/** An absolute http:// or https:// URL (whatever its host: targetUrlProblem says whether it may be called). */
export const isHttpUrl = (value: unknown): boolean => {
  try {
    const url = new URL(String(value));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true });

/** Why the URL may not be a webhook target, or undefined when it may. */
export async function targetUrlProblem(raw: string, allow: AllowList, resolve: Resolver = systemResolver): Promise<string | undefined> {
  let host: string;
  try {
    host = checkUrl(raw, allow).host;
  } catch (err) {
    if (err instanceof DomainError) return (err.details?.[0] as { message?: string } | undefined)?.message ?? err.message;
    throw err;
  }
  if (parseIp(host) || isHostAllowListed(allow, host)) return undefined;
  const addresses = await resolve(host).catch(() => []);
  const refused = addresses.some((a) => !classifyAddress(a.address).allowed && !isAddressAllowListed(allow, a.address));
  // The address itself stays out of the message: it would map our internal DNS for tenants.
  return refused ? `${host} resolves to a non-public address` : undefined;
}
