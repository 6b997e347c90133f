// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto


export interface DeliverResponse {
  'providerMessageId'?: (string);
  'driver'?: (string);
}

export interface DeliverResponse__Output {
  'providerMessageId': (string);
  'driver': (string);
}
