// Original file: /work/main/protos/messaging/v1/messaging.proto


export interface GetMessageRequest {
  'tenantId'?: (number);
  'messageId'?: (string);
}

export interface GetMessageRequest__Output {
  'tenantId': (number);
  'messageId': (string);
}
