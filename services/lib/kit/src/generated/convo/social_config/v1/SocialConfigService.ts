// Original file: /work/main/protos/social_config/v1/social_config.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ChannelProfile as _convo_social_config_v1_ChannelProfile, ChannelProfile__Output as _convo_social_config_v1_ChannelProfile__Output } from '../../../convo/social_config/v1/ChannelProfile';
import type { GetProfileRequest as _convo_social_config_v1_GetProfileRequest, GetProfileRequest__Output as _convo_social_config_v1_GetProfileRequest__Output } from '../../../convo/social_config/v1/GetProfileRequest';

export interface SocialConfigServiceClient extends grpc.Client {
  GetProfile(argument: _convo_social_config_v1_GetProfileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  GetProfile(argument: _convo_social_config_v1_GetProfileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  GetProfile(argument: _convo_social_config_v1_GetProfileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  GetProfile(argument: _convo_social_config_v1_GetProfileRequest, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  getProfile(argument: _convo_social_config_v1_GetProfileRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  getProfile(argument: _convo_social_config_v1_GetProfileRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  getProfile(argument: _convo_social_config_v1_GetProfileRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  getProfile(argument: _convo_social_config_v1_GetProfileRequest, callback: grpc.requestCallback<_convo_social_config_v1_ChannelProfile__Output>): grpc.ClientUnaryCall;
  
}

export interface SocialConfigServiceHandlers extends grpc.UntypedServiceImplementation {
  GetProfile: grpc.handleUnaryCall<_convo_social_config_v1_GetProfileRequest__Output, _convo_social_config_v1_ChannelProfile>;
  
}

export interface SocialConfigServiceDefinition extends grpc.ServiceDefinition {
  GetProfile: MethodDefinition<_convo_social_config_v1_GetProfileRequest, _convo_social_config_v1_ChannelProfile, _convo_social_config_v1_GetProfileRequest__Output, _convo_social_config_v1_ChannelProfile__Output>
}
