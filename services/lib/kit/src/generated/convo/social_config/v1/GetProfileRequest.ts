// Original file: /work/main/protos/social_config/v1/social_config.proto


export interface GetProfileRequest {
  'tenantId'?: (number);
  'channelId'?: (number);
}

export interface GetProfileRequest__Output {
  'tenantId': (number);
  'channelId': (number);
}
