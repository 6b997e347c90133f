export type * from './convo/social_config/v1/ChannelProfile';
export type * from './convo/social_config/v1/GetProfileRequest';
export type * from './convo/social_config/v1/Greeting';
export type * from './convo/social_config/v1/IceBreaker';
export type * from './convo/social_config/v1/SocialConfigService';
