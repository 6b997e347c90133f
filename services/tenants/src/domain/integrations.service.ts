import { conflict, DomainError, forbidden, Issues, notFound, type proto, unauthenticated } from '@convo/kit';
import { firstOfEach, isDuplicateKey } from '@convo/kit/mongo';
import { randomBytes } from 'node:crypto';
import type { ApisRepository } from '../db/apis.repository';
import type { ChannelsRepository } from '../db/channels.repository';
import type { ApiIntegrationDoc } from '../db/models';
import type { TenantsRepository } from '../db/tenants.repository';
import { toApi } from './records';
import type { RevocationFeed } from './revocations';
import { TargetUrls } from './target-urls';
import { newApiId, newApiToken, sha256 } from './tokens';
import { isOptionalUrl } from './validation';

/** A caller-chosen token must be as hard to guess as the ones we generate (32+ characters). */
export const MIN_TOKEN_LENGTH = 32;
/** …and not a run of a few characters repeated (32 × "a" is 32 characters and no secret). */
export const MIN_TOKEN_DISTINCT_CHARS = 10;

function createIssues(req: proto.tenants.CreateApiRequest__Output): Issues {
  const issues = new Issues();
  issues.check(req.name.trim().length > 0, 'name', 'is required');
  if (req.authToken.length < MIN_TOKEN_LENGTH) issues.check(false, 'authToken', `must have at least ${MIN_TOKEN_LENGTH} characters`);
  else
    issues.check(
      new Set(req.authToken).size >= MIN_TOKEN_DISTINCT_CHARS,
      'authToken',
      `must use at least ${MIN_TOKEN_DISTINCT_CHARS} different characters`,
    );
  issues.check(isOptionalUrl(req.urlServiceStatus), 'urlServiceStatus', 'must be an http(s) URL or null');
  issues.check(isOptionalUrl(req.urlMessageStatus), 'urlMessageStatus', 'must be an http(s) URL or null');
  return issues;
}

/** API integrations: created with a caller's token or with a channel; deleted with immediate revocation. */
export class IntegrationsService {
  constructor(
    private readonly tenants: TenantsRepository,
    private readonly channels: ChannelsRepository,
    private readonly apis: ApisRepository,
    private readonly revocations: RevocationFeed,
    private readonly targets: TargetUrls = new TargetUrls(),
  ) {}

  /** The first `limit` integrations of each of these tenants, oldest first; tokens are never shown. */
  async firstApisOf(tenantIds: readonly number[], limit: number): Promise<Map<number, proto.tenants.ApiIntegration[]>> {
    const apis = await firstOfEach(
      tenantIds,
      limit,
      (a: ApiIntegrationDoc) => a.tenantId,
      (ids, max) => this.apis.firstApisOf(ids, max),
    );
    return new Map([...apis].map(([tenantId, docs]) => [tenantId, docs.map((a) => toApi(a))]));
  }

  /**
   * An integration with a token made here (the console's): its owner is `userId`, by default the
   * tenant's administrator. The token is answered once (stored only as its SHA-256).
   */
  async createWithNewToken(req: Omit<proto.tenants.CreateApiRequest__Output, 'authToken' | 'userId'> & { userId: number | null }) {
    const owner = req.userId ?? (await this.tenants.findTenantAdmin(req.tenant))?._id;
    if (owner === undefined) throw notFound('tenant');
    const authToken = newApiToken();
    const api = await this.createApi({ ...req, userId: owner, authToken });
    const doc = await this.apis.findApi(String(api.apiId));
    return { integration: toApi(doc!), authToken };
  }

  /** Deletes an integration of this tenant (another tenant's is not found); its token stops at once. */
  async revokeApi(tenantId: number, apiId: string): Promise<void> {
    const api = await this.apis.findApi(apiId);
    if (!api || api.tenantId !== tenantId) throw notFound('api');
    await this.deleteApi({ apiId, tenant: tenantId, sessionId: api.sessionId, userId: api.userId });
  }

  /** The token is the caller's; only its SHA-256 is stored and it is not echoed back. */
  async createApi(req: proto.tenants.CreateApiRequest__Output) {
    const issues = createIssues(req);
    await this.targets.check(issues, { urlServiceStatus: req.urlServiceStatus, urlMessageStatus: req.urlMessageStatus });
    issues.throwIfAny('Invalid API integration');
    if (!(await this.tenants.findTenant(req.tenant))) throw notFound('tenant');
    if (!(await this.channels.findChannel(req.tenant, req.sessionId)))
      throw notFound('channel', `Channel ${req.sessionId} is not a channel of tenant ${req.tenant}`);
    if (!(await this.tenants.findUser(req.tenant, req.userId)))
      throw notFound('user', `User ${req.userId} is not a user of tenant ${req.tenant}`);
    const api: ApiIntegrationDoc = {
      _id: newApiId(),
      tenantId: req.tenant,
      name: req.name.trim(),
      sessionId: req.sessionId,
      urlServiceStatus: req.urlServiceStatus,
      urlMessageStatus: req.urlMessageStatus,
      userId: req.userId,
      tokenHash: sha256(req.authToken),
      createdAt: new Date(),
    };
    await this.apis.insertApi(api).catch((err: unknown) => {
      throw isDuplicateKey(err) ? conflict('ERR_TOKEN_IN_USE', 'This authToken is already used by another integration') : err;
    });
    return toApi(api);
  }

  /**
   * Every identifying field must match, else the integration is "not found". The revocation is
   * recorded before the deletion, so no replica can miss it, and pushed to this replica's
   * watchers at once; the others read it from the log within one poll.
   */
  async deleteApi(req: proto.tenants.DeleteApiRequest__Output) {
    const api = await this.apis.findApi(req.apiId);
    const matches = api && api.tenantId === req.tenant && api.sessionId === req.sessionId && api.userId === req.userId;
    if (!api || !matches) throw notFound('api', 'No API integration matches apiId, tenant, sessionId and userId');
    await this.apis.recordRevocation(api._id, api.tenantId);
    await this.apis.deleteApi(api._id);
    this.revocations.publish([api._id]);
    return { apiId: api._id, deleted: true };
  }

  /**
   * A tenant set inactive: every gateway drops its cached token resolutions, as for a deleted
   * integration (the log entry names the tenant, not an integration, so a later deactivation of the
   * same tenant is announced again).
   */
  async revokeTenant(tenantId: number): Promise<void> {
    await this.announce(`tenant:${tenantId}:${Date.now()}`, tenantId);
  }

  /**
   * A channel was edited: every gateway drops its cached copy of it (the engine webhook's token
   * check). Written after the edit is stored, so that a gateway that hears of it reads the edit.
   * Each edit is its own entry, so an edit right after another is announced too.
   */
  async channelChanged(channelId: number, tenantId: number): Promise<void> {
    await this.announce(`channel:${channelId}:${Date.now()}:${randomBytes(4).toString('hex')}`, tenantId);
  }

  /** Logs a change that is stored already and pushes it to this replica's watchers, even when the log write fails. */
  private async announce(entry: string, tenantId: number): Promise<void> {
    try {
      await this.apis.recordRevocation(entry, tenantId);
    } finally {
      this.revocations.publish([entry]);
    }
  }

  /** 401 for a token nobody owns, 403 for a real token used on another integration's path. */
  async resolveApiToken(apiId: string, tokenSha256: string) {
    const api = await this.apis.findApiByTokenHash(tokenSha256);
    if (!api) throw unauthenticated();
    if (api._id !== apiId) throw forbidden('This token belongs to another API integration');
    const tenant = await this.tenants.findTenant(api.tenantId);
    if (tenant?.status === 'inactive')
      throw new DomainError('forbidden', 'ERR_TENANT_INACTIVE', 'The tenant of this integration is inactive');
    return { apiId: api._id, tenantId: api.tenantId, sessionId: api.sessionId, userId: api.userId };
  }
}
