// Original file: /work/main/protos/messaging/v1/messaging.proto


export interface Message {
  'messageId'?: (string);
  'tenantId'?: (number);
  'ticketId'?: (number);
  'channelId'?: (number);
  'direction'?: (string);
  'body'?: (string);
  'status'?: (string);
  'providerMessageId'?: (string);
  'error'?: (string);
  'mediaUrl'?: (string);
  'mimeType'?: (string);
  'createdAt'?: (string);
  'updatedAt'?: (string);
}

export interface Message__Output {
  'messageId': (string);
  'tenantId': (number);
  'ticketId': (number);
  'channelId': (number);
  'direction': (string);
  'body': (string);
  'status': (string);
  'providerMessageId': (string);
  'error': (string);
  'mediaUrl': (string);
  'mimeType': (string);
  'createdAt': (string);
  'updatedAt': (string);
}
