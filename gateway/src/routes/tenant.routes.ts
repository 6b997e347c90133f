import { PAYMENT_GATEWAYS, type proto } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import { apiRecord, channelRecord, hybridRecord, tenantRecord, userRecord } from '../presenters';
import { security } from './principal';
import { ApiDeleted, ApiResult, CreateSessionResult } from '../schemas/channel.schemas';
import { canonicalGatewayNames } from '../schemas/payment-aliases';
import {
  CreateApiBody,
  CreateSessionBody,
  DeleteApiBody,
  ListTenantsQuery,
  ShowTenantBody,
  StoreTenantBody,
  StoreTenantResult,
  TenantPage,
  TenantResult,
  UpdateTenantBody,
} from '../schemas/tenant.schemas';

/**
 * A link field as the tenants service takes it: decimal text for numbers, the value itself for
 * strings, JSON for anything else (reported there as invalid); null is "not given" on create.
 */
export const linkValue = (v: unknown, nullAs?: string): string | undefined => {
  if (v === undefined) return undefined;
  if (v === null) return nullAs;
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : JSON.stringify(v);
};

/** Update: every `<gateway>CustomerId`/`<gateway>Token` sent, as pairs (the service checks them). */
const sentPairs = (b: Record<string, unknown>): proto.tenants.GatewayPair[] =>
  PAYMENT_GATEWAYS.filter((g) => b[`${g}CustomerId`] !== undefined || b[`${g}Token`] !== undefined).map((gateway) => ({
    gateway,
    customerId: b[`${gateway}CustomerId`] as string | undefined,
    token: b[`${gateway}Token`] as string | undefined,
  }));

const list = (values: string[] | undefined) => (values === undefined ? undefined : { values });

function updateRequest(b: UpdateTenantBody): proto.tenants.UpdateTenantRequest {
  return {
    identity: b.identity,
    status: b.status,
    maxUsers: b.maxUsers,
    maxConnections: b.maxConnections,
    paymentGateway: b.paymentGateway,
    gatewayPairs: sentPairs(b),
    gatewayA: b.gateway_a,
    supportChatEnabled: b.supportChatEnabled,
    menuVisibility: list(b.menuVisibility),
    allowedChannels: list(b.allowedChannels),
    channelConnectionLimits: b.channelConnectionLimits === undefined ? undefined : { limits: b.channelConnectionLimits },
    oauthEnabled: b.oauthEnabled,
    oauthProxyUrl: b.oauthProxyUrl,
    socialAWebhookProxyUrl: b.social_aWebhookProxyUrl,
    socialAWebhookProxySecret: b.social_aWebhookProxySecret,
    socialBWebhookProxyUrl: b.social_bWebhookProxyUrl,
    socialBWebhookProxySecret: b.social_bWebhookProxySecret,
  };
}

/**
 * The platform's tenant API: `{base_url}/<operation>`, super-admin token only. The tenant API
 * deletes integrations, so this plugin also keeps the gateway's revocation stream open for the
 * life of the app (auth.ts).
 */
export async function tenantRoutes(app: FastifyInstance, { clients, auth }: { clients: Clients; auth: Authenticator }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('onRequest', auth.superAdmin);
  auth.watchRevocations();
  // preClose, not onClose: the GraphQL drain closes the app from inside an onClose hook, after
  // which later onClose hooks never run, and an open stream would keep the process alive.
  app.addHook('preClose', async () => auth.close());
  const tags = ['tenant'];

  r.get(
    '/tenantApiListTenants',
    { schema: { summary: 'A page of the tenants', querystring: ListTenantsQuery, response: { 200: TenantPage }, tags, security } },
    async (req) => {
      const q = req.query;
      const res = await clients.tenants.ListTenants({ page: q.page, limit: q.limit, status: q.status, name: q.name });
      return {
        success: true as const,
        data: { tenants: res.tenants.map(tenantRecord), page: res.page, limit: res.limit, total: res.total, hasMore: res.hasMore },
      };
    },
  );

  // Real gateway names (asaas, stripe, …) become the seed's before the body is validated.
  const preValidation = async (req: { body: unknown }) => canonicalGatewayNames(req.body);

  r.post(
    '/tenantApiStoreTenant',
    {
      schema: {
        summary: 'Create a tenant and its administrator',
        body: StoreTenantBody,
        response: { 200: StoreTenantResult },
        tags,
        security,
      },
      preValidation,
    },
    async (req) => {
      const b = req.body as StoreTenantBody;
      const gw = b.paymentGateway ?? '';
      const res = await clients.tenants.StoreTenant({
        status: b.status,
        name: b.name,
        maxUsers: b.maxUsers,
        maxConnections: b.maxConnections,
        acceptTerms: b.acceptTerms,
        email: b.email,
        password: b.password,
        userName: b.userName,
        profile: b.profile,
        planId: b.planId,
        identity: b.identity ?? '',
        paymentGateway: gw,
        gatewayCredentials: gw ? { customerId: String(b[`${gw}CustomerId`] ?? ''), token: String(b[`${gw}Token`] ?? '') } : undefined,
        gatewayAEnabled: b.gateway_a === 'enabled',
      });
      // `data.id`: where provisioning panels read the new tenant's id (also at data.tenant.id).
      return {
        success: true as const,
        data: {
          id: res.tenant!.id,
          tenant: tenantRecord(res.tenant!),
          adminUser: { ...userRecord(res.adminUser!), tenantId: res.adminUser!.tenantId },
        },
      };
    },
  );

  r.post(
    '/tenantApiShowTenant',
    { schema: { summary: 'One tenant by id', body: ShowTenantBody, response: { 200: TenantResult }, tags, security } },
    async (req) => ({
      success: true as const,
      data: tenantRecord(await clients.tenants.ShowTenant({ id: req.body.id })),
    }),
  );

  r.post(
    '/tenantApiUpdateTenant',
    {
      schema: { summary: 'Update the tenant with this identity', body: UpdateTenantBody, response: { 200: TenantResult }, tags, security },
      preValidation,
    },
    async (req) => ({
      success: true as const,
      data: tenantRecord(await clients.tenants.UpdateTenant(updateRequest(req.body as UpdateTenantBody))),
    }),
  );

  r.post(
    '/tenantApiCreateSession',
    {
      schema: {
        summary: 'Create a channel (session) and its API integration',
        body: CreateSessionBody,
        response: { 200: CreateSessionResult },
        tags,
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const res = await clients.tenants.CreateSession({
        tenant: b.tenant,
        name: b.name,
        status: b.status ?? '',
        type: b.type,
        tokenApi: b.tokenAPI ?? '',
        wabaId: b.wabaId ?? '',
        bmToken: b.bmToken ?? '',
        hybridMode: linkValue(b.hybridMode),
        linkedChannelId: linkValue(b.linkedChannelId),
        linkToWhatsappId: linkValue(b.linkToWhatsappId),
        engineUrl: b.engineUrl ?? '',
        engineToken: b.engineToken ?? '',
        webhookEnabled: b.webhookEnabled ?? false,
        webhookUrl: b.webhookUrl ?? '',
        webhookIncoming: b.webhookIncoming ?? false,
        pageId: b.pageId ?? '',
        pageToken: b.pageToken ?? '',
        emailAddress: b.emailAddress ?? '',
        sendIntervalMs: b.sendIntervalMs,
      });
      return {
        success: true as const,
        data: {
          id: res.whatsapp!.id, // the new channel's id, as clients read it (also at data.whatsapp.id)
          whatsapp: channelRecord(res.whatsapp!),
          api: apiRecord(res.api!),
          ...(res.hybrid?.present ? { hybrid: hybridRecord(res.hybrid) } : {}),
        },
      };
    },
  );

  r.post(
    '/tenantCreateApi',
    {
      schema: {
        summary: 'Create an API integration with your own token',
        body: CreateApiBody,
        response: { 200: ApiResult },
        tags,
        security,
      },
    },
    async (req) => {
      const b = req.body;
      const api = await clients.tenants.CreateApi({
        name: b.name,
        sessionId: b.sessionId,
        urlServiceStatus: b.urlServiceStatus ?? '',
        urlMessageStatus: b.urlMessageStatus ?? '',
        userId: b.userId,
        authToken: b.authToken,
        tenant: b.tenant,
      });
      return { success: true as const, data: { api: apiRecord(api) } };
    },
  );

  r.post(
    '/tenantDeleteApi',
    { schema: { summary: 'Delete an API integration', body: DeleteApiBody, response: { 200: ApiDeleted }, tags, security } },
    async (req) => {
      const res = await clients.tenants.DeleteApi(req.body);
      // This process stops trusting its cache for the integration at once; others hear it from the stream.
      auth.revoke([res.apiId]);
      return { success: true as const, data: { apiId: res.apiId, deleted: res.deleted } };
    },
  );
}
