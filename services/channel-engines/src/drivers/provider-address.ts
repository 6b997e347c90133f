import * as dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress, providerFailed } from '@convo/kit';
import { Agent } from 'undici';

/**
 * Provider base URLs are the operator's and trusted, private networks included (an engine server
 * in the cluster, a fake one on loopback in tests), but no provider is ever at a link-local address:
 * 169.254.0.0/16 and fe80::/10 are where cloud metadata services answer. A URL that names or
 * resolves to one is refused when called, whoever stored it (a channel edited before tenants lost
 * the engine fields included). Why the address may not be called, or undefined.
 */
export function providerAddressProblem(address: string): string | undefined {
  const reason = classifyAddress(address).reason;
  return reason?.includes('link-local') ? reason : undefined;
}

/** Refused at once and for good: a retry would go to the same address. */
export const refusedAddress = (provider: string, why: string) =>
  providerFailed(`${provider} is at an address no provider may be at: ${why}`, [{ provider }]);

/** The literal address of a URL's host, checked before any request (no lookup happens for those). */
export function literalAddressProblem(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined; // not a URL: the request fails with its own error
  }
  return isIP(host) ? providerAddressProblem(host) : undefined;
}

export class LinkLocalRefused extends Error {
  readonly code = 'ERR_PROVIDER_ADDRESS';
}

type Lookup = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/**
 * net.connect's lookup with the addresses checked, so that the ones checked are the ones connected
 * to; `lookup` is the system's (injectable, so a test can give any DNS answer offline). Engines
 * may run on the cluster's private network, so only what providerAddressProblem names is refused;
 * a tenant's webhook and media URLs go through the kit's safeRequest, which allows public
 * addresses only.
 */
export function providerLookup(lookup: Lookup = dns.lookup): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    lookup(hostname, { ...options, all: true }, (err, list) => {
      if (err) return callback(err);
      const refused = list.map((a) => providerAddressProblem(a.address)).find(Boolean);
      if (refused) return callback(new LinkLocalRefused(`${hostname} resolves to ${refused}`));
      if (options.all) return callback(null, list);
      return callback(null, list[0]?.address, list[0]?.family);
    });
  }) as unknown as LookupFunction;
}

/** The connection pool of every provider call: undici's defaults, with the guarded lookup. */
export const providerAgent = new Agent({ connect: { lookup: providerLookup() } });
