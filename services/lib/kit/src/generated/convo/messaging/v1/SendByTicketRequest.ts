// Original file: /work/main/protos/messaging/v1/messaging.proto

import type { Media as _convo_messaging_v1_Media, Media__Output as _convo_messaging_v1_Media__Output } from '../../../convo/messaging/v1/Media';

export interface SendByTicketRequest {
  'tenantId'?: (number);
  'ticketId'?: (number);
  'body'?: (string);
  'externalKey'?: (string);
  'reopen'?: (boolean);
  'isClosed'?: (boolean);
  'media'?: (_convo_messaging_v1_Media | null);
}

export interface SendByTicketRequest__Output {
  'tenantId': (number);
  'ticketId': (number);
  'body': (string);
  'externalKey': (string);
  'reopen': (boolean);
  'isClosed': (boolean);
  'media': (_convo_messaging_v1_Media__Output | null);
}
