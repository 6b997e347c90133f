import { DomainError, Issues, notFound, type proto, validation } from '@convo/kit';
import { groupByKey } from '@convo/kit/mongo';
import type { ApisRepository } from '../db/apis.repository';
import type { ChannelsRepository } from '../db/channels.repository';
import type { ApiIntegrationDoc, ChannelDoc } from '../db/models';
import type { TenantsRepository } from '../db/tenants.repository';
import { CHANNEL_STATUSES, CHANNEL_TYPES, isOneOf, limitKeyOf, type ChannelType } from './catalog';
import { assertTenantActive, assertTypeAllowed, ConnectionLimits } from './channel-policy';
import { assertChannelFieldsFor, type ChannelEditor } from './channel-fields';
import { withCompensation } from './compensation';
import { HybridLinks, type HybridOutcome, type LinkPlan } from './hybrid-links';
import { toApi, toChannel } from './records';
import { newApiId, newApiToken, newWebhookSecret, sha256 } from './tokens';
import { TargetUrls } from './target-urls';
import { isEmailAddress, isOptionalUrl, isSmtpUrl } from './validation';

type CreateRequest = proto.tenants.CreateSessionRequest__Output;
type UpdateRequest = proto.tenants.UpdateChannelRequest__Output;

/** How long a rotated-out webhook secret keeps signing, so receivers can switch without a gap. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** engineUrl: an engine's http(s) base, or for webmail an smtp(s):// relay URL. */
const engineUrlOk = (type: string, url: string | undefined) => !url || (type === 'webmail' ? isSmtpUrl(url) : isOptionalUrl(url));
const engineUrlRule = (type: string) => (type === 'webmail' ? 'must be an smtp:// or smtps:// URL' : 'must be an http(s) URL');

/** The seed's code for an unknown channel on PUT /whatsapp/{id}. */
const noWappFound = () => new DomainError('not_found', 'ERR_NO_WAPP_FOUND', 'Channel not found');

export function toHybrid(outcome: HybridOutcome): proto.tenants.HybridResult {
  if (!outcome.present) return { present: false };
  if (!outcome.applied) return { present: true, applied: false, error: outcome.error };
  return { ...outcome, linkedChannelId: outcome.linkedChannelId };
}

function createIssues(req: CreateRequest): Issues {
  const issues = new Issues();
  issues.check(req.name.trim().length > 0, 'name', 'is required');
  issues.check(isOneOf(CHANNEL_TYPES, req.type), 'type', `must be one of ${CHANNEL_TYPES.join(', ')}`);
  issues.check(!req.status || isOneOf(CHANNEL_STATUSES, req.status), 'status', 'must be DISCONNECTED or CONNECTED');
  issues.check(engineUrlOk(req.type, req.engineUrl), 'engineUrl', engineUrlRule(req.type));
  issues.check(isOptionalUrl(req.webhookUrl), 'webhookUrl', 'must be an http(s) URL');
  if (req.type === 'webmail') {
    issues.check(isEmailAddress(req.emailAddress.trim()), 'emailAddress', 'is required for webmail and must be an e-mail address');
  }
  if (req.type === 'waba') {
    issues.check(/^\d+$/.test(req.tokenApi), 'tokenAPI', 'is required for waba and must be digits only');
    issues.check(req.wabaId.length > 0, 'wabaId', 'is required for waba');
    issues.check(req.bmToken.length > 0, 'bmToken', 'is required for waba');
  }
  if (req.type === 'social_a' || req.type === 'social_b') {
    issues.check(req.pageId.length > 0, 'pageId', `is required for ${req.type}`);
    issues.check(req.pageToken.length > 0, 'pageToken', `is required for ${req.type}`);
  }
  return issues;
}

function newChannelDoc(id: number, tenantId: number, req: CreateRequest, link: LinkPlan): ChannelDoc {
  const now = new Date();
  return {
    _id: id,
    tenantId,
    name: req.name.trim(),
    status: (req.status || 'DISCONNECTED') as ChannelDoc['status'],
    type: req.type,
    channelKind: limitKeyOf(req.type as ChannelType),
    tokenAPI: req.tokenApi,
    wabaId: req.wabaId,
    bmToken: req.bmToken,
    hybridMode: link.set.hybridMode ?? 'disabled',
    ...(link.set.linkedChannelId !== undefined ? { linkedChannelId: link.set.linkedChannelId } : {}),
    engineUrl: req.engineUrl,
    engineToken: req.engineToken,
    webhookEnabled: req.webhookEnabled,
    webhookUrl: req.webhookUrl,
    webhookIncoming: req.webhookIncoming,
    pageId: req.pageId,
    pageToken: req.pageToken,
    emailAddress: req.emailAddress.trim().toLowerCase(),
    sendIntervalMs: req.sendIntervalMs ?? null,
    webhookSecret: newWebhookSecret(),
    createdAt: now,
    updatedAt: now,
  };
}

const EDITABLE = [
  'name',
  'status',
  'engineUrl',
  'engineToken',
  'webhookEnabled',
  'webhookUrl',
  'webhookIncoming',
  'pageId',
  'pageToken',
  'emailAddress',
  'marketingMessagesApi',
] as const;

function updateIssues(channel: ChannelDoc, req: UpdateRequest): Issues {
  const issues = new Issues();
  if (req.name !== undefined) issues.check(req.name.trim().length > 0, 'name', 'must not be empty');
  if (req.status !== undefined) issues.check(isOneOf(CHANNEL_STATUSES, req.status), 'status', 'must be DISCONNECTED or CONNECTED');
  issues.check(engineUrlOk(channel.type, req.engineUrl), 'engineUrl', `${engineUrlRule(channel.type)} or empty`);
  if (req.emailAddress !== undefined) {
    issues.check(channel.type === 'webmail', 'emailAddress', 'applies to webmail channels only');
    issues.check(isEmailAddress(req.emailAddress.trim()), 'emailAddress', 'must be an e-mail address');
  }
  issues.check(isOptionalUrl(req.webhookUrl), 'webhookUrl', 'must be an http(s) URL or empty');
  if (req.marketingMessagesApi !== undefined)
    issues.check(channel.type === 'waba', 'marketingMessagesApi', 'applies to waba channels only');
  if (channel.type === 'social_a' || channel.type === 'social_b') {
    if (req.pageId !== undefined) issues.check(req.pageId.length > 0, 'pageId', `is required for ${channel.type}`);
    if (req.pageToken !== undefined) issues.check(req.pageToken.length > 0, 'pageToken', `is required for ${channel.type}`);
  }
  return issues;
}

/** Channels (sessions): creation with its integration, edits, and the limits and links around them. */
export class ChannelsService {
  private readonly limits: ConnectionLimits;
  private readonly links: HybridLinks;

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly channels: ChannelsRepository,
    private readonly apis: ApisRepository,
    private readonly targets: TargetUrls,
    /** Announces an edited channel to the gateways that cache it (IntegrationsService.channelChanged). */
    private readonly announce: (channelId: number, tenantId: number) => Promise<void>,
  ) {
    this.limits = new ConnectionLimits(channels);
    this.links = new HybridLinks(channels);
  }

  /** `by`: the REST tenant API is the operator's; a tenant administrator's console session sets less (channel-fields.ts). */
  async createSession(req: CreateRequest, by: ChannelEditor = 'operator') {
    assertChannelFieldsFor(by, req);
    const issues = createIssues(req);
    await this.targets.check(issues, { webhookUrl: req.webhookUrl });
    issues.throwIfAny('Invalid session');
    const tenant = await this.tenants.findTenant(req.tenant);
    if (!tenant) throw notFound('tenant');
    assertTenantActive(tenant);
    const plan = tenant.planId ? await this.tenants.findPlan(tenant.planId) : null;
    const type = req.type as ChannelType;
    assertTypeAllowed(type, tenant, plan);
    const admin = await this.tenants.findTenantAdmin(tenant._id);
    const id = await this.tenants.nextId('channel');
    const token = newApiToken();

    return withCompensation(async (undo) => {
      await this.limits.reserve(tenant, plan, limitKeyOf(type), id, undo);
      const link = await this.links.planCreate({ id, tenantId: tenant._id, type }, linkInputOf(req), undo);
      const channel = newChannelDoc(id, tenant._id, req, link);
      await this.channels.insertChannel(channel);
      undo.add(() => this.channels.deleteChannel(id));
      const api = newApiDoc(channel, admin?._id ?? 0, sha256(token));
      await this.apis.insertApi(api);
      undo.add(() => this.apis.deleteApi(api._id));
      await link.commit();
      return { whatsapp: toChannel(channel), api: toApi(api, token), hybrid: toHybrid(link.outcome) };
    });
  }

  async updateChannel(req: UpdateRequest, by: ChannelEditor = 'operator') {
    const channel = await this.channels.findChannelById(req.id);
    if (!channel) throw noWappFound();
    assertChannelFieldsFor(by, req);
    const issues = updateIssues(channel, req);
    await this.targets.check(issues, { webhookUrl: req.webhookUrl });
    issues.throwIfAny('Invalid channel update');
    const set: Record<string, unknown> = { updatedAt: new Date() };
    for (const field of EDITABLE) if (req[field] !== undefined) set[field] = req[field];
    if (req.name !== undefined) set.name = req.name.trim();
    if (req.emailAddress !== undefined) set.emailAddress = req.emailAddress.trim().toLowerCase();
    if (req.sendIntervalMs !== undefined) set.sendIntervalMs = req.sendIntervalMs < 0 ? null : req.sendIntervalMs;
    if (req.rotateWebhookSecret) {
      set.webhookSecret = newWebhookSecret();
      if (channel.webhookSecret) {
        set.webhookSecretPrevious = channel.webhookSecret;
        set.webhookSecretPreviousUntil = new Date(Date.now() + WEBHOOK_SECRET_OVERLAP_MS);
      }
    }

    const outcome = await withCompensation(async (undo) => {
      const link = await this.links.planUpdate(channel, { hybridMode: req.hybridMode, linkedChannelId: req.linkedChannelId }, undo);
      const updated = await this.channels.updateChannel(channel._id, { ...set, ...link.set }, link.unsetLinked ? ['linkedChannelId'] : []);
      if (!updated) throw noWappFound();
      await link.commit();
      return { whatsapp: toChannel(updated), hybrid: toHybrid(link.outcome) };
    });
    // After the edit is stored (and outside its compensation: the edit stands if this fails).
    await this.announce(channel._id, channel.tenantId);
    return outcome;
  }

  /** Every channel of a tenant, oldest first (listChannels); a tenant holds at most its maxConnections. */
  async listChannels(tenantId: number) {
    if (!(tenantId > 0)) throw notFound('tenant');
    return (await this.channels.listChannels(tenantId)).map(toChannel);
  }

  /** Every channel of each of these tenants, oldest first: one query for all. */
  async listChannelsOf(tenantIds: readonly number[]): Promise<Map<number, proto.tenants.Channel[]>> {
    const docs = groupByKey(tenantIds, await this.channels.listChannelsOf(tenantIds), (c) => c.tenantId);
    return new Map([...docs].map(([tenantId, channels]) => [tenantId, channels.map(toChannel)]));
  }

  /** A channel of this tenant, never of any tenant: tenantId 0 finds none. */
  async getTenantChannel(tenantId: number, channelId: number) {
    if (!(tenantId > 0)) throw notFound('channel');
    return this.getChannel(tenantId, channelId);
  }

  /** A channel named by another subgraph by id alone, or null; the reference checks its tenant. */
  async findAnyChannel(channelId: number): Promise<proto.tenants.Channel | null> {
    const channel = await this.channels.findChannelById(channelId);
    return channel ? toChannel(channel) : null;
  }

  /** The users and channels of each of these tenants: one count of each for all of them. */
  async usageOf(tenantIds: readonly number[]): Promise<Map<number, { users: number; connections: number }>> {
    const [users, connections] = await Promise.all([this.tenants.countUsersOf(tenantIds), this.channels.countChannelsOf(tenantIds)]);
    return new Map(tenantIds.map((id) => [id, { users: users.get(id) ?? 0, connections: connections.get(id) ?? 0 }]));
  }

  /** tenantId 0: any tenant (internal callers that hold no tenant yet, e.g. engine webhooks). */
  async getChannel(tenantId: number, channelId: number) {
    const channel = tenantId === 0 ? await this.channels.findChannelById(channelId) : await this.channels.findChannel(tenantId, channelId);
    if (!channel) throw notFound('channel');
    return toChannel(channel);
  }

  /**
   * The channel behind a provider account of an inbound Meta webhook: waba by its phone-number id
   * (tokenAPI), social_a/social_b by page id. Were two channels to hold one account, the oldest wins.
   */
  async findChannelByAccount(type: string, accountId: string) {
    const field = type === 'waba' ? 'tokenAPI' : type === 'social_a' || type === 'social_b' ? 'pageId' : undefined;
    if (!field) throw validation('Unknown account type', [{ field: 'type', message: 'must be waba, social_a or social_b' }]);
    const channel = accountId ? await this.channels.findChannelByAccount(type, field, accountId) : null;
    if (!channel) throw notFound('channel', `No ${type} channel has account ${accountId}`);
    return toChannel(channel);
  }

  async listChannelIntegrations(tenantId: number, channelId: number) {
    await this.getChannel(tenantId, channelId);
    return { integrations: (await this.apis.listChannelApis(tenantId, channelId)).map((a) => toApi(a)) };
  }

  /** Engine connection events move a channel between CONNECTED and DISCONNECTED. */
  async setChannelStatus(tenantId: number, channelId: number, status: string) {
    if (!isOneOf(CHANNEL_STATUSES, status)) {
      throw validation('Invalid status', [{ field: 'status', message: 'must be DISCONNECTED or CONNECTED' }]);
    }
    const channel = await this.channels.findChannel(tenantId, channelId);
    if (!channel) throw notFound('channel');
    const updated = await this.channels.updateChannel(channelId, { status, updatedAt: new Date() });
    if (!updated) throw notFound('channel');
    return toChannel(updated);
  }
}

const linkInputOf = (req: CreateRequest) => ({
  hybridMode: req.hybridMode,
  linkedChannelId: req.linkedChannelId,
  linkToWhatsappId: req.linkToWhatsappId,
});

/** The integration every new channel gets, owned by the tenant's administrator. */
function newApiDoc(channel: ChannelDoc, userId: number, tokenHash: string): ApiIntegrationDoc {
  return {
    _id: newApiId(),
    tenantId: channel.tenantId,
    name: channel.name,
    sessionId: channel._id,
    urlServiceStatus: '',
    urlMessageStatus: '',
    userId,
    tokenHash,
    createdAt: channel.createdAt,
  };
}
