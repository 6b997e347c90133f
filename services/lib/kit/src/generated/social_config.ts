import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { ChannelProfile as _convo_social_config_v1_ChannelProfile, ChannelProfile__Output as _convo_social_config_v1_ChannelProfile__Output } from './convo/social_config/v1/ChannelProfile';
import type { GetProfileRequest as _convo_social_config_v1_GetProfileRequest, GetProfileRequest__Output as _convo_social_config_v1_GetProfileRequest__Output } from './convo/social_config/v1/GetProfileRequest';
import type { Greeting as _convo_social_config_v1_Greeting, Greeting__Output as _convo_social_config_v1_Greeting__Output } from './convo/social_config/v1/Greeting';
import type { IceBreaker as _convo_social_config_v1_IceBreaker, IceBreaker__Output as _convo_social_config_v1_IceBreaker__Output } from './convo/social_config/v1/IceBreaker';
import type { SocialConfigServiceClient as _convo_social_config_v1_SocialConfigServiceClient, SocialConfigServiceDefinition as _convo_social_config_v1_SocialConfigServiceDefinition } from './convo/social_config/v1/SocialConfigService';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  convo: {
    social_config: {
      v1: {
        ChannelProfile: MessageTypeDefinition<_convo_social_config_v1_ChannelProfile, _convo_social_config_v1_ChannelProfile__Output>
        GetProfileRequest: MessageTypeDefinition<_convo_social_config_v1_GetProfileRequest, _convo_social_config_v1_GetProfileRequest__Output>
        Greeting: MessageTypeDefinition<_convo_social_config_v1_Greeting, _convo_social_config_v1_Greeting__Output>
        IceBreaker: MessageTypeDefinition<_convo_social_config_v1_IceBreaker, _convo_social_config_v1_IceBreaker__Output>
        SocialConfigService: SubtypeConstructor<typeof grpc.Client, _convo_social_config_v1_SocialConfigServiceClient> & { service: _convo_social_config_v1_SocialConfigServiceDefinition }
      }
    }
  }
}

