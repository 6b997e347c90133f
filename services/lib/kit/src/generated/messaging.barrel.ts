export type * from './convo/messaging/v1/GetMessageRequest';
export type * from './convo/messaging/v1/Media';
export type * from './convo/messaging/v1/Message';
export type * from './convo/messaging/v1/MessagingService';
export type * from './convo/messaging/v1/SendByTicketRequest';
export type * from './convo/messaging/v1/SendByTicketResponse';
