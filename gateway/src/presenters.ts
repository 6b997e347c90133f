import type { proto } from '@convo/kit';

const orNull = <T>(v: T | undefined) => (v === undefined ? null : v);

/** The ticket record of every read (README, "Ticket record"). */
export const ticketRecord = (t: proto.tickets.Ticket__Output) => ({
  id: t.id,
  ticketId: t.id,
  status: t.status,
  whatsappId: t.channelId,
  contact: t.contact && { id: t.contact.id, number: t.contact.number, name: t.contact.name, email: t.contact.email || null },
  userId: orNull(t.userId),
  queueId: orNull(t.queueId),
  chatFlowId: orNull(t.chatFlowId),
  kanbanId: orNull(t.kanbanId),
  reasonId: orNull(t.reasonId),
  value: orNull(t.value),
  externalKey: t.externalKey || null,
  botBuilderStatus: t.botBuilderStatus,
  llmAssistantStatus: t.llmAssistantStatus,
  workflowStatus: t.workflowStatus,
  tagIds: t.tagIds,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
  closedAt: t.closedAt || null,
});

export const tenantRecord = (t: proto.tenants.Tenant__Output) => ({
  id: t.id,
  name: t.name,
  status: t.status,
  maxUsers: t.maxUsers,
  maxConnections: t.maxConnections,
  identity: t.identity || null,
  planId: orNull(t.planId),
  paymentGateway: t.paymentGateway || null,
  gateway_a: t.gatewayAEnabled ? 'enabled' : 'disabled',
  paymentStatus: t.paymentStatus || null,
  createdAt: t.createdAt,
  updatedAt: t.updatedAt,
});

/** Provider secrets (bmToken, engineToken, pageToken) are never returned. */
export const channelRecord = (c: proto.tenants.Channel__Output) => ({
  id: c.id,
  tenantId: c.tenantId,
  name: c.name,
  status: c.status,
  type: c.type,
  tokenAPI: c.tokenApi || null,
  wabaId: c.wabaId || null,
  hybridMode: c.hybridMode,
  linkedChannelId: orNull(c.linkedChannelId),
  engineUrl: c.engineUrl || null,
  webhookEnabled: c.webhookEnabled,
  webhookUrl: c.webhookUrl || null,
  webhookIncoming: c.webhookIncoming,
  pageId: c.pageId || null,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});
