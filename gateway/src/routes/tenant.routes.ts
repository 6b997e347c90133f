import { validation } from '@convo/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth';
import type { Clients } from '../clients';
import { channelRecord, tenantRecord } from '../presenters';
import { CreateSessionBody, PAYMENT_GATEWAYS, ShowTenantBody, StoreTenantBody } from '../schemas/tenant.schemas';

const optionalInt = (v: unknown, field: string): number | undefined => {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  throw validation('Invalid session', [{ field, message: 'must be an integer' }]);
};

/** The platform's tenant API: `{base_url}/<operation>`, super-admin token only. */
export async function tenantRoutes(app: FastifyInstance, { clients, auth }: { clients: Clients; auth: Authenticator }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.addHook('onRequest', auth.superAdmin);
  const tags = ['tenant'];
  const security = [{ bearer: [] }];

  r.post('/tenantApiStoreTenant', { schema: { body: StoreTenantBody, tags, security } }, async (req) => {
    const b = req.body as StoreTenantBody;
    const gw = b.paymentGateway ?? '';
    const strays = PAYMENT_GATEWAYS.filter((g) => g !== gw).flatMap((g) =>
      [`${g}CustomerId`, `${g}Token`].filter((f) => b[f] !== undefined),
    );
    if (strays.length) {
      throw validation(
        'Send only the credentials of the chosen gateway',
        strays.map((field) => ({ field, message: gw ? `does not belong to ${gw}` : 'needs paymentGateway' })),
      );
    }
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
    return { success: true, data: { tenant: tenantRecord(res.tenant!), adminUser: res.adminUser } };
  });

  r.post('/tenantApiShowTenant', { schema: { body: ShowTenantBody, tags, security } }, async (req) => ({
    success: true,
    data: tenantRecord(await clients.tenants.ShowTenant({ id: req.body.id })),
  }));

  r.post('/tenantApiCreateSession', { schema: { body: CreateSessionBody, tags, security } }, async (req) => {
    const b = req.body;
    const res = await clients.tenants.CreateSession({
      tenant: b.tenant,
      name: b.name,
      status: b.status ?? '',
      type: b.type,
      tokenApi: b.tokenAPI ?? '',
      wabaId: b.wabaId ?? '',
      bmToken: b.bmToken ?? '',
      hybridMode: b.hybridMode ?? '',
      linkedChannelId: optionalInt(b.linkedChannelId, 'linkedChannelId'),
      linkToWhatsappId: optionalInt(b.linkToWhatsappId, 'linkToWhatsappId'),
      engineUrl: b.engineUrl ?? '',
      engineToken: b.engineToken ?? '',
      webhookEnabled: b.webhookEnabled ?? false,
      webhookUrl: b.webhookUrl ?? '',
      webhookIncoming: b.webhookIncoming ?? false,
      pageId: b.pageId ?? '',
      pageToken: b.pageToken ?? '',
    });
    const api = res.api!;
    return {
      success: true,
      data: {
        whatsapp: channelRecord(res.whatsapp!),
        api: {
          apiId: api.apiId,
          name: api.name,
          sessionId: api.sessionId,
          userId: api.userId,
          tenant: api.tenant,
          urlServiceStatus: api.urlServiceStatus || null,
          urlMessageStatus: api.urlMessageStatus || null,
          authToken: api.authToken,
          createdAt: api.createdAt,
        },
        ...(res.hybrid?.present ? { hybrid: hybridRecord(res.hybrid) } : {}),
      },
    };
  });
}

const hybridRecord = (h: { applied: boolean; whatsappId: number; hybridMode: string; linkedChannelId: number; error: string }) =>
  h.applied
    ? { applied: true, whatsappId: h.whatsappId, hybridMode: h.hybridMode, linkedChannelId: h.linkedChannelId }
    : { applied: false, error: h.error };
