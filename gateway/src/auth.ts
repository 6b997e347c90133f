import { bearerMatches, forbidden, isServiceError, tokenSha256, TtlCache, unauthenticated, type proto } from '@convo/kit';
import * as grpc from '@grpc/grpc-js';
import type { FastifyRequest } from 'fastify';
import type { Clients } from './clients';

/**
 * The caller of an external route: the integration its token resolved to (tenants'
 * ResolveApiToken), or the warm-up's own principal (warmup.ts), the only one marked `warmup`.
 */
export type Principal = proto.tenants.ApiPrincipal__Output & { warmup?: true };
type Channel = proto.tenants.Channel__Output;

/** How tenants names an edited channel on the revocation feed: `channel:<id>:…` (IntegrationsService.channelChanged). */
const CHANNEL_ENTRY = /^channel:\d+:/;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The credentials of `Authorization: Bearer …`; scheme names are case-insensitive (RFC 9110). */
export const bearer = (req: FastifyRequest): string | undefined => {
  const match = /^bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
  return match?.[1];
};

export interface RevocationWatchOptions {
  /** No message (revocation or heartbeat) for this long: the stream is treated as down. */
  staleMs: number;
  firstRetryMs: number;
  maxRetryMs: number;
}

export const DEFAULT_WATCH_OPTIONS: RevocationWatchOptions = { staleMs: 3_500, firstRetryMs: 100, maxRetryMs: 5_000 };

export interface RevocationListener {
  /** The stream delivered its first message: revocations will now arrive as they happen. */
  onLive(): void;
  /** The stream broke or fell silent: revocations may be missed until it is live again. */
  onDown(): void;
  onRevoked(apiIds: string[]): void;
}

/**
 * One WatchRevocations stream to the tenants service for the life of the process, reopened with
 * backoff when it fails or falls silent (the feed sends heartbeats only while it reads the log).
 */
export class RevocationWatch {
  private stream?: grpc.ClientReadableStream<proto.tenants.RevocationBatch__Output>;
  private live = false;
  private closed = false;
  private retryMs: number;
  private staleTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;

  constructor(
    private readonly open: () => grpc.ClientReadableStream<proto.tenants.RevocationBatch__Output>,
    private readonly listener: RevocationListener,
    private readonly opts: RevocationWatchOptions = DEFAULT_WATCH_OPTIONS,
  ) {
    this.retryMs = opts.firstRetryMs;
  }

  start(): void {
    if (this.closed || this.stream) return;
    const stream = this.open();
    this.stream = stream;
    // Events of a stream already given up (cancelled, replaced) are ignored.
    const current = () => this.stream === stream;
    stream.on('data', (batch: proto.tenants.RevocationBatch__Output) => current() && this.onMessage(batch.apiIds));
    stream.on('error', () => current() && this.drop());
    stream.on('end', () => current() && this.drop());
    this.armStaleTimer();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.staleTimer);
    clearTimeout(this.retryTimer);
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
  }

  private onMessage(apiIds: string[]): void {
    if (!this.live) {
      this.live = true;
      this.retryMs = this.opts.firstRetryMs;
      this.listener.onLive();
    }
    if (apiIds.length) this.listener.onRevoked(apiIds);
    this.armStaleTimer();
  }

  private armStaleTimer(): void {
    clearTimeout(this.staleTimer);
    this.staleTimer = setTimeout(() => this.drop(), this.opts.staleMs);
  }

  private drop(): void {
    clearTimeout(this.staleTimer);
    const stream = this.stream;
    this.stream = undefined;
    stream?.cancel();
    if (this.live) {
      this.live = false;
      this.listener.onDown();
    }
    if (this.closed) return;
    this.retryTimer = setTimeout(() => this.start(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, this.opts.maxRetryMs);
  }
}

/** Integrations whose deletion was seen recently; a resolution of one of them is never cached. */
const REVOKED_MEMORY_MS = 10 * 60_000;

/**
 * Integration tokens resolved through the tenants service, cached briefly: the gateway resolves a
 * token on every external call. A cached resolution is trusted only while the revocation stream
 * is live, so a deleted integration's token stops working at once on every gateway process.
 *
 * Engine channels (whose engineToken authenticates an engine's webhook) are cached the same way:
 * tenants announces every edit of a channel on the same feed, after the edit is stored, so a
 * rotated engine token stops working as soon as the announcement arrives.
 */
export class Authenticator {
  private readonly cache: TtlCache<string, Principal>;
  private readonly channels: TtlCache<number, Channel>;
  private readonly revoked = new TtlCache<string, true>(REVOKED_MEMORY_MS, 100_000);
  /** Resolutions under way: the requests that miss one token at the same moment share one call. */
  private readonly resolving = new Map<string, Promise<Principal>>();
  private cacheTrusted = false;
  /** Bumped on every revocation and stream change: a resolution that straddles one is not cached. */
  private generation = 0;
  private watch?: RevocationWatch;
  /** The warm-up's own token and principal (warmup.ts), set only while it runs. */
  private warmup?: { token: string; principal: Principal };

  constructor(
    private readonly clients: Clients,
    private readonly superAdminToken: string,
    cacheMs: number,
  ) {
    this.cache = new TtlCache(cacheMs, 10_000, 'token');
    this.channels = new TtlCache(cacheMs, 10_000, 'channel');
  }

  /**
   * A channel by its id (any tenant's), for the routes that name one without a tenant's token: an
   * engine webhook's token check, the web chat widget's. From the cache while the revocation stream
   * is live (tenants announces every edit of a channel on it), otherwise asked afresh. Rejects as
   * GetChannel does (NOT_FOUND for an unknown channel, which is never cached: a channel created a
   * moment ago is found).
   */
  channelById(channelId: number): Promise<Channel> {
    const load = () => this.clients.tenants.GetChannel({ tenantId: 0, channelId });
    return this.cacheTrusted ? this.channels.getOrLoad(channelId, load) : load();
  }

  /** onRequest hook of the external API: the token must belong to the integration in the path. */
  external = async (req: FastifyRequest<{ Params: { apiId?: string } }>) => {
    const token = bearer(req);
    if (!token) throw unauthenticated('Missing bearer token');
    if (bearerMatches(`Bearer ${token}`, this.superAdminToken)) throw forbidden('The super-admin token is not an integration token');
    if (this.warmup && bearerMatches(`Bearer ${token}`, this.warmup.token)) {
      req.principal = this.warmup.principal;
      return;
    }
    const apiId = req.params.apiId ?? '';
    req.principal = await this.resolve(apiId, tokenSha256(token));
  };

  /** Lets the warm-up's in-process token act as its principal (a tenant of none); undefined ends it. */
  allowWarmup(token: string | undefined, principal?: Principal): void {
    this.warmup = token && principal ? { token, principal } : undefined;
  }

  private async resolve(apiId: string, tokenSha256: string): Promise<Principal> {
    const key = `${apiId}:${tokenSha256}`;
    const cached = this.cacheTrusted ? this.cache.get(key) : undefined;
    if (cached) return cached;
    if (!this.cacheTrusted) return this.clients.tenants.ResolveApiToken({ apiId, tokenSha256 });
    const pending = this.resolving.get(key);
    if (pending) return pending;
    const generation = this.generation;
    const resolution = this.clients.tenants
      .ResolveApiToken({ apiId, tokenSha256 })
      .then((principal) => {
        // A revocation can be seen before the deletion it announces is visible to this read.
        if (this.cacheTrusted && generation === this.generation && !this.revoked.get(principal.apiId)) this.cache.set(key, principal);
        return principal;
      })
      .finally(() => {
        if (this.resolving.get(key) === resolution) this.resolving.delete(key);
      });
    this.resolving.set(key, resolution);
    return resolution;
  }

  /** onRequest hook of the tenant API: only the super-admin token; an integration token is 403. */
  superAdmin = async (req: FastifyRequest) => {
    const token = bearer(req);
    if (!token) throw unauthenticated('Missing bearer token');
    if (bearerMatches(`Bearer ${token}`, this.superAdminToken)) return;
    const isIntegrationToken = await this.clients.tenants.ResolveApiToken({ apiId: '', tokenSha256: tokenSha256(token) }).then(
      () => true,
      (err: unknown) => isServiceError(err) && err.code === grpc.status.PERMISSION_DENIED,
    );
    throw isIntegrationToken ? forbidden('Integration tokens may not use the tenant API') : unauthenticated('Unknown token');
  };

  /**
   * Deletions are rare, so a revocation empties the whole cache rather than searching it; the
   * revoked ids are remembered so that a resolution racing the deletion is not cached. A changed
   * channel empties the channel cache only (a load under way is not stored: TtlCache.clear).
   */
  revoke(entries: string[]): void {
    const apiIds = entries.filter((e) => !CHANNEL_ENTRY.test(e));
    if (apiIds.length < entries.length) this.channels.clear();
    if (!apiIds.length) return;
    for (const id of apiIds) this.revoked.set(id, true);
    this.generation++;
    this.cache.clear();
    this.resolving.clear();
  }

  /** Opens the revocation stream; until it is live, every call is resolved afresh. */
  watchRevocations(opts?: RevocationWatchOptions): void {
    this.watch ??= new RevocationWatch(() => this.clients.tenants.WatchRevocations({}), this.streamListener, opts);
    this.watch.start();
  }

  private readonly streamListener: RevocationListener = {
    onLive: () => this.setTrusted(true),
    onDown: () => this.setTrusted(false),
    onRevoked: (apiIds) => this.revoke(apiIds),
  };

  private setTrusted(trusted: boolean): void {
    this.generation++;
    this.cache.clear();
    this.channels.clear();
    this.resolving.clear();
    this.cacheTrusted = trusted;
  }

  close(): void {
    this.watch?.close();
  }
}
