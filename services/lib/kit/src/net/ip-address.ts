// IP address parsing and the table of address ranges a tenant-supplied URL may never reach.
//
// Hand-rolled on purpose: net.BlockList misses IPv4-compatible (::a.b.c.d), NAT64 and 6to4
// embeddings and throws on zone ids (fe80::1%eth0). Everything here works on raw bytes, so
// every textual form of an address (compressed, uppercase, dotted tail) compares the same.

import { isIP } from 'node:net';

export type IpFamily = 4 | 6;

export interface ParsedIp {
  readonly family: IpFamily;
  readonly bytes: Uint8Array;
}

export interface Cidr {
  readonly family: IpFamily;
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

export interface AddressVerdict {
  allowed: boolean;
  reason?: string;
}

/**
 * Parses an IPv4 or IPv6 address in any textual form. Brackets ([::1]) and zone ids
 * (fe80::1%eth0) are dropped: the zone only picks an interface, it never changes which range
 * the address belongs to.
 */
export function parseIp(text: string): ParsedIp | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  s = s.toLowerCase();
  const family = isIP(s);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(s.split('.').map(Number)) };
  if (family === 6) return { family: 6, bytes: parseIpv6(s) };
  return undefined;
}

/** `s` has already passed net.isIP, so only well-formed input reaches this. */
function parseIpv6(s: string): Uint8Array {
  const [head, tail] = dottedTailToHex(s).split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros: string[] = Array(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = tail === undefined ? headGroups : [...headGroups, ...zeros, ...tailGroups];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const word = parseInt(g, 16);
    bytes[i * 2] = word >> 8;
    bytes[i * 2 + 1] = word & 0xff;
  });
  return bytes;
}

/** `::ffff:127.0.0.1` → `::ffff:7f00:1`, so the group parser only ever sees hex words. */
function dottedTailToHex(s: string): string {
  const m = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (!m) return s;
  const [a, b, c, d] = m.slice(2).map(Number);
  return `${m[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** `10.0.0.0/8`, `fc00::/7`; a bare address is a single-host range. Undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf('/');
  const ip = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (!ip) return undefined;
  const maxPrefix = ip.family === 4 ? 32 : 128;
  if (slash === -1) return { ...ip, prefix: maxPrefix };
  const prefixText = text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > maxPrefix) return undefined;
  return { ...ip, prefix };
}

export function inCidr(ip: ParsedIp, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  const whole = cidr.prefix >> 3;
  for (let i = 0; i < whole; i++) if (ip.bytes[i] !== cidr.bytes[i]) return false;
  const rest = cidr.prefix & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (ip.bytes[whole] & mask) === (cidr.bytes[whole] & mask);
}

interface BlockedRange {
  cidr: Cidr;
  reason: string;
}

function range(text: string, reason: string): BlockedRange {
  const cidr = parseCidr(text);
  if (!cidr) throw new Error(`bad built-in range ${text}`);
  return { cidr, reason };
}

// Order matters only for the reason reported: the first match wins.
const BLOCKED_V4: readonly BlockedRange[] = [
  range('0.0.0.0/8', 'unspecified ("this network")'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local (cloud metadata)'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  range('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  range('224.0.0.0/4', 'multicast'),
  range('255.255.255.255/32', 'broadcast'),
  range('240.0.0.0/4', 'reserved'),
];

const BLOCKED_V6: readonly BlockedRange[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  // Deprecated (RFC 4291): nothing legitimate uses it, and some stacks route it to IPv4.
  range('::/96', 'IPv4-compatible'),
  range('64:ff9b:1::/48', 'local-use NAT64'),
  range('100::/64', 'discard-only'),
  // Teredo hides the client's IPv4 address obfuscated in the low bits: block it outright.
  range('2001::/32', 'Teredo'),
  range('2001:db8::/32', 'documentation'),
  range('fc00::/7', 'unique local (private)'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local'),
  range('ff00::/8', 'multicast'),
];

// IPv6 forms that carry an IPv4 address and reach it: they are as safe as the IPv4 address.
const EMBEDDING_V4: readonly { cidr: Cidr; offset: number; name: string }[] = [
  { cidr: range('::ffff:0:0/96', '').cidr, offset: 12, name: 'IPv4-mapped' },
  { cidr: range('::ffff:0:0:0/96', '').cidr, offset: 12, name: 'IPv4-translated' },
  { cidr: range('64:ff9b::/96', '').cidr, offset: 12, name: 'NAT64' },
  { cidr: range('2002::/16', '').cidr, offset: 2, name: '6to4' },
];

function firstBlocked(ip: ParsedIp, table: readonly BlockedRange[]): string | undefined {
  return table.find((r) => inCidr(ip, r.cidr))?.reason;
}

function embeddedIpv4(ip: ParsedIp): { v4: ParsedIp; name: string } | undefined {
  const hit = EMBEDDING_V4.find((e) => inCidr(ip, e.cidr));
  if (!hit) return undefined;
  return { v4: { family: 4, bytes: ip.bytes.slice(hit.offset, hit.offset + 4) }, name: hit.name };
}

/** The IPv4 address an IPv4-mapped IPv6 address stands for, so allow lists can match it. */
export function unmapIpv4(ip: ParsedIp): ParsedIp {
  const embedded = embeddedIpv4(ip);
  return embedded?.name === 'IPv4-mapped' ? embedded.v4 : ip;
}

/**
 * Whether a tenant-supplied URL may connect to `ip`: only public unicast addresses may. Anything
 * that is not an IP address is refused, so a caller that forgets to resolve fails closed.
 */
export function classifyAddress(ip: string): AddressVerdict {
  const parsed = parseIp(ip);
  if (!parsed) return { allowed: false, reason: 'not an IP address' };
  if (parsed.family === 4) return verdict(firstBlocked(parsed, BLOCKED_V4));
  const blocked = firstBlocked(parsed, BLOCKED_V6);
  if (blocked) return verdict(blocked);
  const embedded = embeddedIpv4(parsed);
  if (!embedded) return { allowed: true };
  const inner = firstBlocked(embedded.v4, BLOCKED_V4);
  return verdict(inner && `${embedded.name} ${embedded.v4.bytes.join('.')}: ${inner}`);
}

function verdict(reason: string | undefined): AddressVerdict {
  return reason ? { allowed: false, reason } : { allowed: true };
}
