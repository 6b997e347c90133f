// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface GetChannelRequest {
  'tenantId'?: (number);
  'channelId'?: (number);
}

export interface GetChannelRequest__Output {
  'tenantId': (number);
  'channelId': (number);
}
