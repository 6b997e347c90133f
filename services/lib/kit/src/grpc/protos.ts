import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type {
  ChannelEnginesServiceClient,
  ChannelEnginesServiceHandlers,
} from '../generated/convo/channel_engines/v1/ChannelEnginesService';
import type { MessagingServiceClient, MessagingServiceHandlers } from '../generated/convo/messaging/v1/MessagingService';
import type { SocialConfigServiceClient, SocialConfigServiceHandlers } from '../generated/convo/social_config/v1/SocialConfigService';
import type { TenantsServiceClient, TenantsServiceHandlers } from '../generated/convo/tenants/v1/TenantsService';
import type { TicketsServiceClient, TicketsServiceHandlers } from '../generated/convo/tickets/v1/TicketsService';

/** The one set of loader options; scripts/gen-protos.js passes the same ones to the type generator. */
export const PROTO_OPTIONS: protoLoader.Options = {
  keepCase: false,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
};

export interface ServiceRegistry {
  tickets: { client: TicketsServiceClient; handlers: TicketsServiceHandlers };
  messaging: { client: MessagingServiceClient; handlers: MessagingServiceHandlers };
  channelEngines: { client: ChannelEnginesServiceClient; handlers: ChannelEnginesServiceHandlers };
  socialConfig: { client: SocialConfigServiceClient; handlers: SocialConfigServiceHandlers };
  tenants: { client: TenantsServiceClient; handlers: TenantsServiceHandlers };
}
export type ServiceName = keyof ServiceRegistry;

const SERVICES: Record<ServiceName, { file: string; fullName: string }> = {
  tickets: { file: 'tickets/v1/tickets.proto', fullName: 'convo.tickets.v1.TicketsService' },
  messaging: { file: 'messaging/v1/messaging.proto', fullName: 'convo.messaging.v1.MessagingService' },
  channelEngines: {
    file: 'channel_engines/v1/channel_engines.proto',
    fullName: 'convo.channel_engines.v1.ChannelEnginesService',
  },
  socialConfig: { file: 'social_config/v1/social_config.proto', fullName: 'convo.social_config.v1.SocialConfigService' },
  tenants: { file: 'tenants/v1/tenants.proto', fullName: 'convo.tenants.v1.TenantsService' },
};

// Built packages carry a copy of protos/ in dist/protos; sources (tests) read the repository's.
const PROTO_ROOT = [join(__dirname, '..', 'protos'), join(__dirname, '..', '..', '..', '..', '..', 'protos')].find((dir) =>
  existsSync(dir),
);

/** A service's full proto name (`convo.tickets.v1.TicketsService`), without loading its proto. */
export const serviceFullName = (name: ServiceName): string => SERVICES[name].fullName;

export interface LoadedService {
  fullName: string;
  definition: grpc.ServiceDefinition;
  Client: grpc.ServiceClientConstructor;
}

const cache = new Map<ServiceName, LoadedService>();

/**
 * The camelCase alias of an RPC named like a grpc.Client method (tenants' GetChannel → getChannel)
 * shadows that method, which OpenTelemetry's gRPC instrumentation calls on every call. The kit
 * calls RPCs by their proto names only, so such aliases are removed.
 */
function dropShadowingAliases(Client: grpc.ServiceClientConstructor): void {
  for (const { originalName } of Object.values(Client.service)) {
    if (originalName && originalName in grpc.Client.prototype && Object.hasOwn(Client.prototype, originalName)) {
      delete (Client.prototype as unknown as Record<string, unknown>)[originalName];
    }
  }
}

export function loadService(name: ServiceName): LoadedService {
  const hit = cache.get(name);
  if (hit) return hit;
  if (!PROTO_ROOT) throw new Error('protos/ not found next to @convo/kit');
  const { file, fullName } = SERVICES[name];
  const pkg = protoLoader.loadSync(file, { ...PROTO_OPTIONS, includeDirs: [PROTO_ROOT] });
  // loadPackageDefinition nests by package; walk the dotted name.
  const Client = fullName
    .split('.')
    .reduce<any>((node, part) => node?.[part], grpc.loadPackageDefinition(pkg)) as grpc.ServiceClientConstructor;
  dropShadowingAliases(Client);
  const loaded = { fullName, definition: Client.service, Client };
  cache.set(name, loaded);
  return loaded;
}
