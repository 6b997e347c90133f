// Original file: /work/main/protos/social_config/v1/social_config.proto

import type { IceBreaker as _convo_social_config_v1_IceBreaker, IceBreaker__Output as _convo_social_config_v1_IceBreaker__Output } from '../../../convo/social_config/v1/IceBreaker';
import type { Greeting as _convo_social_config_v1_Greeting, Greeting__Output as _convo_social_config_v1_Greeting__Output } from '../../../convo/social_config/v1/Greeting';

export interface ChannelProfile {
  'channelId'?: (number);
  'tenantId'?: (number);
  'iceBreakers'?: (_convo_social_config_v1_IceBreaker)[];
  'greetings'?: (_convo_social_config_v1_Greeting)[];
  'updatedAt'?: (string);
}

export interface ChannelProfile__Output {
  'channelId': (number);
  'tenantId': (number);
  'iceBreakers': (_convo_social_config_v1_IceBreaker__Output)[];
  'greetings': (_convo_social_config_v1_Greeting__Output)[];
  'updatedAt': (string);
}
