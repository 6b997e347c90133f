// Original file: /work/main/protos/messaging/v1/messaging.proto


export interface SendByTicketResponse {
  'messageId'?: (string);
  'ticketId'?: (number);
  'idempotent'?: (boolean);
  'skipped'?: (boolean);
  'status'?: (string);
}

export interface SendByTicketResponse__Output {
  'messageId': (string);
  'ticketId': (number);
  'idempotent': (boolean);
  'skipped': (boolean);
  'status': (string);
}
