// Original file: /work/main/protos/tickets/v1/tickets.proto

import type { Contact as _convo_tickets_v1_Contact, Contact__Output as _convo_tickets_v1_Contact__Output } from '../../../convo/tickets/v1/Contact';

export interface Ticket {
  'id'?: (number);
  'tenantId'?: (number);
  'channelId'?: (number);
  'status'?: (string);
  'contact'?: (_convo_tickets_v1_Contact | null);
  'userId'?: (number);
  'queueId'?: (number);
  'chatFlowId'?: (number);
  'kanbanId'?: (number);
  'reasonId'?: (number);
  'value'?: (number | string);
  'externalKey'?: (string);
  'botBuilderStatus'?: (boolean);
  'llmAssistantStatus'?: (boolean);
  'workflowStatus'?: (boolean);
  'tagIds'?: (number)[];
  'createdAt'?: (string);
  'updatedAt'?: (string);
  'closedAt'?: (string);
  '_userId'?: "userId";
  '_queueId'?: "queueId";
  '_chatFlowId'?: "chatFlowId";
  '_kanbanId'?: "kanbanId";
  '_reasonId'?: "reasonId";
  '_value'?: "value";
}

export interface Ticket__Output {
  'id': (number);
  'tenantId': (number);
  'channelId': (number);
  'status': (string);
  'contact': (_convo_tickets_v1_Contact__Output | null);
  'userId'?: (number);
  'queueId'?: (number);
  'chatFlowId'?: (number);
  'kanbanId'?: (number);
  'reasonId'?: (number);
  'value'?: (number);
  'externalKey': (string);
  'botBuilderStatus': (boolean);
  'llmAssistantStatus': (boolean);
  'workflowStatus': (boolean);
  'tagIds': (number)[];
  'createdAt': (string);
  'updatedAt': (string);
  'closedAt': (string);
  '_userId'?: "userId";
  '_queueId'?: "queueId";
  '_chatFlowId'?: "chatFlowId";
  '_kanbanId'?: "kanbanId";
  '_reasonId'?: "reasonId";
  '_value'?: "value";
}
