// Re-exports of the generated message types, one namespace per service.

export * as calls from './generated/calls.barrel';
export * as channelEngines from './generated/channel_engines.barrel';
export * as messaging from './generated/messaging.barrel';
export * as socialConfig from './generated/social_config.barrel';
export * as tenants from './generated/tenants.barrel';
export * as tickets from './generated/tickets.barrel';
