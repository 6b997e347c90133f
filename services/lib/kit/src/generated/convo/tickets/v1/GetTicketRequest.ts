// Original file: /work/main/protos/tickets/v1/tickets.proto


export interface GetTicketRequest {
  'tenantId'?: (number);
  'ticketId'?: (number);
}

export interface GetTicketRequest__Output {
  'tenantId': (number);
  'ticketId': (number);
}
