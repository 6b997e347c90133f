import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ApiIntegration as _convo_tenants_v1_ApiIntegration, ApiIntegration__Output as _convo_tenants_v1_ApiIntegration__Output } from './convo/tenants/v1/ApiIntegration';
import type { ApiPrincipal as _convo_tenants_v1_ApiPrincipal, ApiPrincipal__Output as _convo_tenants_v1_ApiPrincipal__Output } from './convo/tenants/v1/ApiPrincipal';
import type { Channel as _convo_tenants_v1_Channel, Channel__Output as _convo_tenants_v1_Channel__Output } from './convo/tenants/v1/Channel';
import type { CreateSessionRequest as _convo_tenants_v1_CreateSessionRequest, CreateSessionRequest__Output as _convo_tenants_v1_CreateSessionRequest__Output } from './convo/tenants/v1/CreateSessionRequest';
import type { CreateSessionResponse as _convo_tenants_v1_CreateSessionResponse, CreateSessionResponse__Output as _convo_tenants_v1_CreateSessionResponse__Output } from './convo/tenants/v1/CreateSessionResponse';
import type { GatewayCredentials as _convo_tenants_v1_GatewayCredentials, GatewayCredentials__Output as _convo_tenants_v1_GatewayCredentials__Output } from './convo/tenants/v1/GatewayCredentials';
import type { GetChannelRequest as _convo_tenants_v1_GetChannelRequest, GetChannelRequest__Output as _convo_tenants_v1_GetChannelRequest__Output } from './convo/tenants/v1/GetChannelRequest';
import type { HybridResult as _convo_tenants_v1_HybridResult, HybridResult__Output as _convo_tenants_v1_HybridResult__Output } from './convo/tenants/v1/HybridResult';
import type { ResolveApiTokenRequest as _convo_tenants_v1_ResolveApiTokenRequest, ResolveApiTokenRequest__Output as _convo_tenants_v1_ResolveApiTokenRequest__Output } from './convo/tenants/v1/ResolveApiTokenRequest';
import type { ShowTenantRequest as _convo_tenants_v1_ShowTenantRequest, ShowTenantRequest__Output as _convo_tenants_v1_ShowTenantRequest__Output } from './convo/tenants/v1/ShowTenantRequest';
import type { StoreTenantRequest as _convo_tenants_v1_StoreTenantRequest, StoreTenantRequest__Output as _convo_tenants_v1_StoreTenantRequest__Output } from './convo/tenants/v1/StoreTenantRequest';
import type { StoreTenantResponse as _convo_tenants_v1_StoreTenantResponse, StoreTenantResponse__Output as _convo_tenants_v1_StoreTenantResponse__Output } from './convo/tenants/v1/StoreTenantResponse';
import type { Tenant as _convo_tenants_v1_Tenant, Tenant__Output as _convo_tenants_v1_Tenant__Output } from './convo/tenants/v1/Tenant';
import type { TenantsServiceClient as _convo_tenants_v1_TenantsServiceClient, TenantsServiceDefinition as _convo_tenants_v1_TenantsServiceDefinition } from './convo/tenants/v1/TenantsService';
import type { User as _convo_tenants_v1_User, User__Output as _convo_tenants_v1_User__Output } from './convo/tenants/v1/User';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  convo: {
    tenants: {
      v1: {
        ApiIntegration: MessageTypeDefinition<_convo_tenants_v1_ApiIntegration, _convo_tenants_v1_ApiIntegration__Output>
        ApiPrincipal: MessageTypeDefinition<_convo_tenants_v1_ApiPrincipal, _convo_tenants_v1_ApiPrincipal__Output>
        Channel: MessageTypeDefinition<_convo_tenants_v1_Channel, _convo_tenants_v1_Channel__Output>
        CreateSessionRequest: MessageTypeDefinition<_convo_tenants_v1_CreateSessionRequest, _convo_tenants_v1_CreateSessionRequest__Output>
        CreateSessionResponse: MessageTypeDefinition<_convo_tenants_v1_CreateSessionResponse, _convo_tenants_v1_CreateSessionResponse__Output>
        GatewayCredentials: MessageTypeDefinition<_convo_tenants_v1_GatewayCredentials, _convo_tenants_v1_GatewayCredentials__Output>
        GetChannelRequest: MessageTypeDefinition<_convo_tenants_v1_GetChannelRequest, _convo_tenants_v1_GetChannelRequest__Output>
        HybridResult: MessageTypeDefinition<_convo_tenants_v1_HybridResult, _convo_tenants_v1_HybridResult__Output>
        ResolveApiTokenRequest: MessageTypeDefinition<_convo_tenants_v1_ResolveApiTokenRequest, _convo_tenants_v1_ResolveApiTokenRequest__Output>
        ShowTenantRequest: MessageTypeDefinition<_convo_tenants_v1_ShowTenantRequest, _convo_tenants_v1_ShowTenantRequest__Output>
        StoreTenantRequest: MessageTypeDefinition<_convo_tenants_v1_StoreTenantRequest, _convo_tenants_v1_StoreTenantRequest__Output>
        StoreTenantResponse: MessageTypeDefinition<_convo_tenants_v1_StoreTenantResponse, _convo_tenants_v1_StoreTenantResponse__Output>
        Tenant: MessageTypeDefinition<_convo_tenants_v1_Tenant, _convo_tenants_v1_Tenant__Output>
        TenantsService: SubtypeConstructor<typeof grpc.Client, _convo_tenants_v1_TenantsServiceClient> & { service: _convo_tenants_v1_TenantsServiceDefinition }
        User: MessageTypeDefinition<_convo_tenants_v1_User, _convo_tenants_v1_User__Output>
      }
    }
  }
}

