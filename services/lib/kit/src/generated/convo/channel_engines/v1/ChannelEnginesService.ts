// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DeliverRequest as _convo_channel_engines_v1_DeliverRequest, DeliverRequest__Output as _convo_channel_engines_v1_DeliverRequest__Output } from '../../../convo/channel_engines/v1/DeliverRequest';
import type { DeliverResponse as _convo_channel_engines_v1_DeliverResponse, DeliverResponse__Output as _convo_channel_engines_v1_DeliverResponse__Output } from '../../../convo/channel_engines/v1/DeliverResponse';
import type { ListDriversRequest as _convo_channel_engines_v1_ListDriversRequest, ListDriversRequest__Output as _convo_channel_engines_v1_ListDriversRequest__Output } from '../../../convo/channel_engines/v1/ListDriversRequest';
import type { ListDriversResponse as _convo_channel_engines_v1_ListDriversResponse, ListDriversResponse__Output as _convo_channel_engines_v1_ListDriversResponse__Output } from '../../../convo/channel_engines/v1/ListDriversResponse';

export interface ChannelEnginesServiceClient extends grpc.Client {
  Deliver(argument: _convo_channel_engines_v1_DeliverRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  Deliver(argument: _convo_channel_engines_v1_DeliverRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  Deliver(argument: _convo_channel_engines_v1_DeliverRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  Deliver(argument: _convo_channel_engines_v1_DeliverRequest, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  deliver(argument: _convo_channel_engines_v1_DeliverRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  deliver(argument: _convo_channel_engines_v1_DeliverRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  deliver(argument: _convo_channel_engines_v1_DeliverRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  deliver(argument: _convo_channel_engines_v1_DeliverRequest, callback: grpc.requestCallback<_convo_channel_engines_v1_DeliverResponse__Output>): grpc.ClientUnaryCall;
  
  ListDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  ListDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  ListDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  ListDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  listDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  listDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  listDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  listDrivers(argument: _convo_channel_engines_v1_ListDriversRequest, callback: grpc.requestCallback<_convo_channel_engines_v1_ListDriversResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface ChannelEnginesServiceHandlers extends grpc.UntypedServiceImplementation {
  Deliver: grpc.handleUnaryCall<_convo_channel_engines_v1_DeliverRequest__Output, _convo_channel_engines_v1_DeliverResponse>;
  
  ListDrivers: grpc.handleUnaryCall<_convo_channel_engines_v1_ListDriversRequest__Output, _convo_channel_engines_v1_ListDriversResponse>;
  
}

export interface ChannelEnginesServiceDefinition extends grpc.ServiceDefinition {
  Deliver: MethodDefinition<_convo_channel_engines_v1_DeliverRequest, _convo_channel_engines_v1_DeliverResponse, _convo_channel_engines_v1_DeliverRequest__Output, _convo_channel_engines_v1_DeliverResponse__Output>
  ListDrivers: MethodDefinition<_convo_channel_engines_v1_ListDriversRequest, _convo_channel_engines_v1_ListDriversResponse, _convo_channel_engines_v1_ListDriversRequest__Output, _convo_channel_engines_v1_ListDriversResponse__Output>
}
