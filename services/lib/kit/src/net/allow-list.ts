// The operator's escape hatch (WEBHOOK_ALLOWED_PRIVATE): webhook targets on a private network
// the operator vouches for. Media fetches never pass one.

import { validation } from '../errors';
import { type Cidr, inCidr, parseCidr, parseIp, unmapIpv4 } from './ip-address';

export interface AllowList {
  /** Lower-case host names without a trailing dot; matched exactly, never as suffixes. */
  readonly hosts: ReadonlySet<string>;
  readonly cidrs: readonly Cidr[];
}

export const EMPTY_ALLOW_LIST: AllowList = { hosts: new Set(), cidrs: [] };

const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/**
 * `WEBHOOK_ALLOWED_PRIVATE`: comma-separated host names, addresses or CIDRs, empty by default.
 * A malformed entry throws: silently dropping it would hide a typo until a webhook fails.
 */
export function parseAllowList(env: string | undefined): AllowList {
  const hosts = new Set<string>();
  const cidrs: Cidr[] = [];
  for (const entry of (env ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const cidr = parseCidr(entry);
    if (cidr) cidrs.push(cidr);
    else if (!entry.includes('/') && HOST_NAME.test(normaliseHost(entry))) hosts.add(normaliseHost(entry));
    else throw invalidEntry(entry);
  }
  return { hosts, cidrs };
}

function invalidEntry(entry: string) {
  return validation(`WEBHOOK_ALLOWED_PRIVATE has an invalid entry: ${entry}`, [
    { field: 'WEBHOOK_ALLOWED_PRIVATE', message: `not a host name, address or CIDR: ${entry}` },
  ]);
}

function normaliseHost(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

export function isHostAllowListed(list: AllowList, host: string): boolean {
  return list.hosts.has(normaliseHost(host));
}

/** An IPv4-mapped IPv6 address matches the IPv4 CIDRs: it reaches the same host. */
export function isAddressAllowListed(list: AllowList, address: string): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  const candidates = [ip, unmapIpv4(ip)];
  return list.cidrs.some((cidr) => candidates.some((c) => inCidr(c, cidr)));
}
