// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface User {
  'id'?: (number);
  'tenantId'?: (number);
  'name'?: (string);
  'email'?: (string);
  'profile'?: (string);
}

export interface User__Output {
  'id': (number);
  'tenantId': (number);
  'name': (string);
  'email': (string);
  'profile': (string);
}
