// Original file: /work/main/protos/tickets/v1/tickets.proto


export interface CreateTicketRequest {
  'tenantId'?: (number);
  'channelId'?: (number);
  'number'?: (string);
  'email'?: (string);
  'status'?: (string);
  'userId'?: (number);
  'queueId'?: (number);
  'chatFlowId'?: (number);
  'kanbanId'?: (number);
  'reasonId'?: (number);
  'value'?: (number | string);
  'externalKey'?: (string);
  '_userId'?: "userId";
  '_queueId'?: "queueId";
  '_chatFlowId'?: "chatFlowId";
  '_kanbanId'?: "kanbanId";
  '_reasonId'?: "reasonId";
  '_value'?: "value";
}

export interface CreateTicketRequest__Output {
  'tenantId': (number);
  'channelId': (number);
  'number': (string);
  'email': (string);
  'status': (string);
  'userId'?: (number);
  'queueId'?: (number);
  'chatFlowId'?: (number);
  'kanbanId'?: (number);
  'reasonId'?: (number);
  'value'?: (number);
  'externalKey': (string);
  '_userId'?: "userId";
  '_queueId'?: "queueId";
  '_chatFlowId'?: "chatFlowId";
  '_kanbanId'?: "kanbanId";
  '_reasonId'?: "reasonId";
  '_value'?: "value";
}
