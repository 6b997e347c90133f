export type * from './convo/channel_engines/v1/ChannelEnginesService';
export type * from './convo/channel_engines/v1/ChannelTarget';
export type * from './convo/channel_engines/v1/DeliverRequest';
export type * from './convo/channel_engines/v1/DeliverResponse';
export type * from './convo/channel_engines/v1/ListDriversRequest';
export type * from './convo/channel_engines/v1/ListDriversResponse';
export type * from './convo/channel_engines/v1/OutboundContent';
