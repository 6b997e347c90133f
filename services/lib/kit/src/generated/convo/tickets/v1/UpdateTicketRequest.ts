// Original file: /work/main/protos/tickets/v1/tickets.proto


export interface UpdateTicketRequest {
  'tenantId'?: (number);
  'ticketId'?: (number);
  'status'?: (string);
  'userId'?: (number);
  'queueId'?: (number);
  'clearQueue'?: (boolean);
  'chatFlowId'?: (number);
  'clearChatFlow'?: (boolean);
  'botBuilderStatus'?: (boolean);
  'llmAssistantStatus'?: (boolean);
  'workflowStatus'?: (boolean);
  '_userId'?: "userId";
  '_queueId'?: "queueId";
  '_chatFlowId'?: "chatFlowId";
  '_botBuilderStatus'?: "botBuilderStatus";
  '_llmAssistantStatus'?: "llmAssistantStatus";
  '_workflowStatus'?: "workflowStatus";
}

export interface UpdateTicketRequest__Output {
  'tenantId': (number);
  'ticketId': (number);
  'status': (string);
  'userId'?: (number);
  'queueId'?: (number);
  'clearQueue': (boolean);
  'chatFlowId'?: (number);
  'clearChatFlow': (boolean);
  'botBuilderStatus'?: (boolean);
  'llmAssistantStatus'?: (boolean);
  'workflowStatus'?: (boolean);
  '_userId'?: "userId";
  '_queueId'?: "queueId";
  '_chatFlowId'?: "chatFlowId";
  '_botBuilderStatus'?: "botBuilderStatus";
  '_llmAssistantStatus'?: "llmAssistantStatus";
  '_workflowStatus'?: "workflowStatus";
}
