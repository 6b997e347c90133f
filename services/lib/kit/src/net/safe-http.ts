// The one HTTP client for URLs a tenant or caller supplies (media downloads, customer webhooks,
// status callbacks). It must never become a proxy into our own network (SSRF):
//   - only http/https, no credentials in the URL;
//   - literal addresses are checked after the WHATWG parser has normalised them (decimal, octal,
//     hex and short IPv4 forms all become dotted quads);
//   - host names are checked inside the socket's `lookup`, so the addresses checked are exactly
//     the addresses connected to (a second DNS answer cannot swap in a private one: rebinding);
//   - redirects are returned, never followed, so a public URL cannot bounce to a private one;
//   - every request gets its own socket (agent: false), so no pooled connection to one host is
//     reused for another;
//   - connect and total timeouts, and a byte cap enforced while streaming.

import * as dns from 'node:dns';
import * as http from 'node:http';
import * as https from 'node:https';
import type { LookupFunction } from 'node:net';
import { DomainError, payloadTooLarge, validation } from '../errors';
import { type AllowList, EMPTY_ALLOW_LIST, isAddressAllowListed, isHostAllowListed } from './allow-list';
import { classifyAddress, parseIp } from './ip-address';

export interface SafeRequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** From the start of the request until the socket is connected (TLS included for https). */
  connectTimeoutMs: number;
  /** The whole exchange: name resolution, connect, request and the complete response body. */
  totalTimeoutMs: number;
  /** Largest response body accepted; the socket is destroyed as soon as it is exceeded. */
  maxBytes: number;
  /** Webhook targets only (WEBHOOK_ALLOWED_PRIVATE); media fetches pass none. */
  allowPrivate?: AllowList;
}

/** Every status is a result, 3xx included (with its `location`): the caller decides. */
export interface SafeResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface SafeRequestDeps {
  resolve: Resolver;
}

const systemResolver: Resolver = (hostname) => dns.promises.lookup(hostname, { all: true });

export function safeRequest(url: string, opts: SafeRequestOptions): Promise<SafeResponse> {
  return safeRequestWith(url, opts, { resolve: systemResolver });
}

/** safeRequest with the resolver injectable, so tests can simulate any DNS answer offline. */
export async function safeRequestWith(url: string, opts: SafeRequestOptions, deps: SafeRequestDeps): Promise<SafeResponse> {
  checkOptions(opts);
  const allow = opts.allowPrivate ?? EMPTY_ALLOW_LIST;
  const target = checkUrl(url, allow);
  return exchange(target, opts, guardedLookup(deps.resolve, allow));
}

interface Target {
  url: URL;
  /** Host name, or an IP literal without brackets. */
  host: string;
}

function blocked(message: string) {
  return validation('URL is not allowed', [{ field: 'url', message }], 'ERR_URL_BLOCKED');
}

/**
 * A name that does not exist (NXDOMAIN, no data) is the caller's mistake: 400, not a provider
 * failure. A DNS server that does not answer (EAI_AGAIN …) stays a network failure, retried.
 */
function unresolved(hostname: string, err: NodeJS.ErrnoException): Error {
  if (err.code !== 'ENOTFOUND' && err.code !== 'ENODATA') return err;
  return validation('URL host does not resolve', [{ field: 'url', message: `${hostname} does not resolve` }], 'ERR_URL_UNRESOLVED');
}

function fetchFailed(reason: 'connect-timeout' | 'total-timeout' | 'network', message: string) {
  return new DomainError('provider', 'ERR_FETCH_FAILED', message, [{ reason }]);
}

// A NaN or negative limit would silently disable a cap (`size > NaN` is always false).
function checkOptions(opts: SafeRequestOptions): void {
  for (const key of ['connectTimeoutMs', 'totalTimeoutMs', 'maxBytes'] as const) {
    const value = opts[key];
    if (!Number.isFinite(value) || value <= 0) {
      const message = `safeRequest: ${key} must be a positive number`;
      throw new DomainError('internal', 'ERR_INVALID_OPTIONS', message);
    }
  }
}

/** Everything decidable without DNS. Host names are checked later, at connect time. */
export function checkUrl(raw: string, allow: AllowList): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw blocked('not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw blocked('only http and https URLs are allowed');
  }
  if (url.username || url.password) throw blocked('credentials in URLs are not allowed');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (parseIp(host)) checkAddress(host, host, allow, `address ${host}`);
  return { url, host };
}

function isPermitted(address: string, host: string, allow: AllowList): boolean {
  return classifyAddress(address).allowed || isHostAllowListed(allow, host) || isAddressAllowListed(allow, address);
}

function checkAddress(address: string, host: string, allow: AllowList, subject: string): void {
  if (isPermitted(address, host, allow)) return;
  throw blocked(`${subject} is not public (${classifyAddress(address).reason})`);
}

/**
 * The socket's DNS lookup: refuses the connection when ANY address is not permitted (a name
 * answering [public, private] could otherwise be connected to the private one), and hands the
 * socket only addresses it has checked.
 */
export function guardedLookup(resolve: Resolver, allow: AllowList): LookupFunction {
  return (hostname, options, callback) => {
    const answer = (addresses: ResolvedAddress[]) => {
      const usable = addresses.filter((a) => !options.family || a.family === options.family);
      if (addresses.some((a) => !isPermitted(a.address, hostname, allow))) {
        // The address itself stays out of the message: it would map our internal DNS for tenants.
        return callback(blocked(`${hostname} resolves to a non-public address`), '');
      }
      if (usable.length === 0) return callback(fetchFailed('network', `${hostname} has no address`), '');
      if (options.all) return callback(null, usable);
      return callback(null, usable[0].address, usable[0].family);
    };
    resolve(hostname).then(answer, (err: NodeJS.ErrnoException) => callback(unresolved(hostname, err), ''));
  };
}

function openRequest(target: Target, opts: SafeRequestOptions, lookup: LookupFunction): http.ClientRequest {
  const transport = target.url.protocol === 'https:' ? https : http;
  return transport.request({
    host: target.host,
    port: target.url.port || undefined,
    path: `${target.url.pathname}${target.url.search}`,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    agent: false,
    lookup,
  });
}

function exchange(target: Target, opts: SafeRequestOptions, lookup: LookupFunction): Promise<SafeResponse> {
  return new Promise((resolve, reject) => {
    const req = openRequest(target, opts, lookup);
    const timers: NodeJS.Timeout[] = [];
    let settled = false;
    const settle = (then: () => void) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      then();
    };
    const fail = (err: Error) =>
      settle(() => {
        req.destroy();
        reject(err);
      });
    const after = (ms: number, err: () => Error) => {
      const timer = setTimeout(() => fail(err()), ms);
      timers.push(timer);
      return timer;
    };

    after(opts.totalTimeoutMs, () => fetchFailed('total-timeout', `No complete response within ${opts.totalTimeoutMs} ms`));
    const connectTimer = after(opts.connectTimeoutMs, () =>
      fetchFailed('connect-timeout', `Could not connect within ${opts.connectTimeoutMs} ms`),
    );
    // https counts as connected once TLS is up: a peer that accepts TCP and stalls the handshake
    // is a connect failure, not a slow response.
    const connectedEvent = target.url.protocol === 'https:' ? 'secureConnect' : 'connect';
    req.once('socket', (socket) => socket.once(connectedEvent, () => clearTimeout(connectTimer)));

    req.on('error', (err) => fail(err instanceof DomainError ? err : fetchFailed('network', `Request failed: ${err.message}`)));
    req.once('response', (res) => readBody(res, opts.maxBytes).then((r) => settle(() => resolve(r)), fail));
    req.end(opts.body);
  });
}

function readBody(res: http.IncomingMessage, maxBytes: number): Promise<SafeResponse> {
  return new Promise((resolve, reject) => {
    // Destroying the response destroys its socket: nothing more is read from the server.
    const stop = (err: Error) => {
      res.destroy();
      reject(err);
    };
    // Refuse before reading anything when the server announces too much.
    const declared = Number(res.headers['content-length']);
    if (declared > maxBytes) {
      return stop(payloadTooLarge(`Response of ${declared} bytes exceeds the ${maxBytes} byte limit`));
    }

    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      if (res.destroyed) return;
      size += chunk.length;
      if (size > maxBytes) return stop(payloadTooLarge(`Response exceeds the ${maxBytes} byte limit`));
      chunks.push(chunk);
    });
    res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks, size) }));
    res.once('error', (err) => reject(fetchFailed('network', `Response failed: ${err.message}`)));
    res.once('close', () => {
      if (!res.complete) reject(fetchFailed('network', 'Connection closed before the response was complete'));
    });
  });
}
