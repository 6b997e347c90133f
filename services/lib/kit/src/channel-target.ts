import type * as proto from './proto-types';

/**
 * The parts of a tenants channel a driver (or an engine's webhook parser) needs, as channel-engines
 * takes them: the one mapping every caller of Deliver, CheckNumber and ParseInbound uses.
 */
export const channelTarget = (c: proto.tenants.Channel__Output): proto.channelEngines.ChannelTarget => ({
  id: c.id,
  tenantId: c.tenantId,
  type: c.type,
  engineUrl: c.engineUrl,
  engineToken: c.engineToken,
  tokenApi: c.tokenApi,
  bmToken: c.bmToken,
  pageId: c.pageId,
  pageToken: c.pageToken,
  wabaId: c.wabaId,
  emailAddress: c.emailAddress,
  marketingMessagesApi: c.marketingMessagesApi,
});
