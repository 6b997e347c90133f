// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface HybridResult {
  'present'?: (boolean);
  'applied'?: (boolean);
  'whatsappId'?: (number);
  'hybridMode'?: (string);
  'linkedChannelId'?: (number);
  'error'?: (string);
}

export interface HybridResult__Output {
  'present': (boolean);
  'applied': (boolean);
  'whatsappId': (number);
  'hybridMode': (string);
  'linkedChannelId': (number);
  'error': (string);
}
