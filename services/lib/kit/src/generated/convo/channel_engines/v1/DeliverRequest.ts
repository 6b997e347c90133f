// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto

import type { ChannelTarget as _convo_channel_engines_v1_ChannelTarget, ChannelTarget__Output as _convo_channel_engines_v1_ChannelTarget__Output } from '../../../convo/channel_engines/v1/ChannelTarget';
import type { OutboundContent as _convo_channel_engines_v1_OutboundContent, OutboundContent__Output as _convo_channel_engines_v1_OutboundContent__Output } from '../../../convo/channel_engines/v1/OutboundContent';

export interface DeliverRequest {
  'channel'?: (_convo_channel_engines_v1_ChannelTarget | null);
  'to'?: (string);
  'content'?: (_convo_channel_engines_v1_OutboundContent | null);
  'reference'?: (string);
}

export interface DeliverRequest__Output {
  'channel': (_convo_channel_engines_v1_ChannelTarget__Output | null);
  'to': (string);
  'content': (_convo_channel_engines_v1_OutboundContent__Output | null);
  'reference': (string);
}
