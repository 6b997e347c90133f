// Original file: /work/main/protos/tickets/v1/tickets.proto


export interface Contact {
  'id'?: (number);
  'number'?: (string);
  'name'?: (string);
  'email'?: (string);
}

export interface Contact__Output {
  'id': (number);
  'number': (string);
  'name': (string);
  'email': (string);
}
