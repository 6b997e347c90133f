export type * from './convo/tickets/v1/Contact';
export type * from './convo/tickets/v1/CreateTicketRequest';
export type * from './convo/tickets/v1/CreateTicketResponse';
export type * from './convo/tickets/v1/GetTicketRequest';
export type * from './convo/tickets/v1/Ticket';
export type * from './convo/tickets/v1/TicketsService';
export type * from './convo/tickets/v1/UpdateTicketRequest';
