// Original file: /work/main/protos/tenants/v1/tenants.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ApiPrincipal as _convo_tenants_v1_ApiPrincipal, ApiPrincipal__Output as _convo_tenants_v1_ApiPrincipal__Output } from '../../../convo/tenants/v1/ApiPrincipal';
import type { Channel as _convo_tenants_v1_Channel, Channel__Output as _convo_tenants_v1_Channel__Output } from '../../../convo/tenants/v1/Channel';
import type { CreateSessionRequest as _convo_tenants_v1_CreateSessionRequest, CreateSessionRequest__Output as _convo_tenants_v1_CreateSessionRequest__Output } from '../../../convo/tenants/v1/CreateSessionRequest';
import type { CreateSessionResponse as _convo_tenants_v1_CreateSessionResponse, CreateSessionResponse__Output as _convo_tenants_v1_CreateSessionResponse__Output } from '../../../convo/tenants/v1/CreateSessionResponse';
import type { GetChannelRequest as _convo_tenants_v1_GetChannelRequest, GetChannelRequest__Output as _convo_tenants_v1_GetChannelRequest__Output } from '../../../convo/tenants/v1/GetChannelRequest';
import type { ResolveApiTokenRequest as _convo_tenants_v1_ResolveApiTokenRequest, ResolveApiTokenRequest__Output as _convo_tenants_v1_ResolveApiTokenRequest__Output } from '../../../convo/tenants/v1/ResolveApiTokenRequest';
import type { ShowTenantRequest as _convo_tenants_v1_ShowTenantRequest, ShowTenantRequest__Output as _convo_tenants_v1_ShowTenantRequest__Output } from '../../../convo/tenants/v1/ShowTenantRequest';
import type { StoreTenantRequest as _convo_tenants_v1_StoreTenantRequest, StoreTenantRequest__Output as _convo_tenants_v1_StoreTenantRequest__Output } from '../../../convo/tenants/v1/StoreTenantRequest';
import type { StoreTenantResponse as _convo_tenants_v1_StoreTenantResponse, StoreTenantResponse__Output as _convo_tenants_v1_StoreTenantResponse__Output } from '../../../convo/tenants/v1/StoreTenantResponse';
import type { Tenant as _convo_tenants_v1_Tenant, Tenant__Output as _convo_tenants_v1_Tenant__Output } from '../../../convo/tenants/v1/Tenant';

export interface TenantsServiceClient extends grpc.Client {
  CreateSession(argument: _convo_tenants_v1_CreateSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  CreateSession(argument: _convo_tenants_v1_CreateSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  CreateSession(argument: _convo_tenants_v1_CreateSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  CreateSession(argument: _convo_tenants_v1_CreateSessionRequest, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  createSession(argument: _convo_tenants_v1_CreateSessionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  createSession(argument: _convo_tenants_v1_CreateSessionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  createSession(argument: _convo_tenants_v1_CreateSessionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  createSession(argument: _convo_tenants_v1_CreateSessionRequest, callback: grpc.requestCallback<_convo_tenants_v1_CreateSessionResponse__Output>): grpc.ClientUnaryCall;
  
  GetChannel(argument: _convo_tenants_v1_GetChannelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_Channel__Output>): grpc.ClientUnaryCall;
  GetChannel(argument: _convo_tenants_v1_GetChannelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_Channel__Output>): grpc.ClientUnaryCall;
  GetChannel(argument: _convo_tenants_v1_GetChannelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_Channel__Output>): grpc.ClientUnaryCall;
  GetChannel(argument: _convo_tenants_v1_GetChannelRequest, callback: grpc.requestCallback<_convo_tenants_v1_Channel__Output>): grpc.ClientUnaryCall;
  
  ResolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  ResolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  ResolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  ResolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  resolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  resolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  resolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  resolveApiToken(argument: _convo_tenants_v1_ResolveApiTokenRequest, callback: grpc.requestCallback<_convo_tenants_v1_ApiPrincipal__Output>): grpc.ClientUnaryCall;
  
  ShowTenant(argument: _convo_tenants_v1_ShowTenantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  ShowTenant(argument: _convo_tenants_v1_ShowTenantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  ShowTenant(argument: _convo_tenants_v1_ShowTenantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  ShowTenant(argument: _convo_tenants_v1_ShowTenantRequest, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  showTenant(argument: _convo_tenants_v1_ShowTenantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  showTenant(argument: _convo_tenants_v1_ShowTenantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  showTenant(argument: _convo_tenants_v1_ShowTenantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  showTenant(argument: _convo_tenants_v1_ShowTenantRequest, callback: grpc.requestCallback<_convo_tenants_v1_Tenant__Output>): grpc.ClientUnaryCall;
  
  StoreTenant(argument: _convo_tenants_v1_StoreTenantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  StoreTenant(argument: _convo_tenants_v1_StoreTenantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  StoreTenant(argument: _convo_tenants_v1_StoreTenantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  StoreTenant(argument: _convo_tenants_v1_StoreTenantRequest, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  storeTenant(argument: _convo_tenants_v1_StoreTenantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  storeTenant(argument: _convo_tenants_v1_StoreTenantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  storeTenant(argument: _convo_tenants_v1_StoreTenantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  storeTenant(argument: _convo_tenants_v1_StoreTenantRequest, callback: grpc.requestCallback<_convo_tenants_v1_StoreTenantResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface TenantsServiceHandlers extends grpc.UntypedServiceImplementation {
  CreateSession: grpc.handleUnaryCall<_convo_tenants_v1_CreateSessionRequest__Output, _convo_tenants_v1_CreateSessionResponse>;
  
  GetChannel: grpc.handleUnaryCall<_convo_tenants_v1_GetChannelRequest__Output, _convo_tenants_v1_Channel>;
  
  ResolveApiToken: grpc.handleUnaryCall<_convo_tenants_v1_ResolveApiTokenRequest__Output, _convo_tenants_v1_ApiPrincipal>;
  
  ShowTenant: grpc.handleUnaryCall<_convo_tenants_v1_ShowTenantRequest__Output, _convo_tenants_v1_Tenant>;
  
  StoreTenant: grpc.handleUnaryCall<_convo_tenants_v1_StoreTenantRequest__Output, _convo_tenants_v1_StoreTenantResponse>;
  
}

export interface TenantsServiceDefinition extends grpc.ServiceDefinition {
  CreateSession: MethodDefinition<_convo_tenants_v1_CreateSessionRequest, _convo_tenants_v1_CreateSessionResponse, _convo_tenants_v1_CreateSessionRequest__Output, _convo_tenants_v1_CreateSessionResponse__Output>
  GetChannel: MethodDefinition<_convo_tenants_v1_GetChannelRequest, _convo_tenants_v1_Channel, _convo_tenants_v1_GetChannelRequest__Output, _convo_tenants_v1_Channel__Output>
  ResolveApiToken: MethodDefinition<_convo_tenants_v1_ResolveApiTokenRequest, _convo_tenants_v1_ApiPrincipal, _convo_tenants_v1_ResolveApiTokenRequest__Output, _convo_tenants_v1_ApiPrincipal__Output>
  ShowTenant: MethodDefinition<_convo_tenants_v1_ShowTenantRequest, _convo_tenants_v1_Tenant, _convo_tenants_v1_ShowTenantRequest__Output, _convo_tenants_v1_Tenant__Output>
  StoreTenant: MethodDefinition<_convo_tenants_v1_StoreTenantRequest, _convo_tenants_v1_StoreTenantResponse, _convo_tenants_v1_StoreTenantRequest__Output, _convo_tenants_v1_StoreTenantResponse__Output>
}
