// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface ApiPrincipal {
  'apiId'?: (string);
  'tenantId'?: (number);
  'sessionId'?: (number);
  'userId'?: (number);
}

export interface ApiPrincipal__Output {
  'apiId': (string);
  'tenantId': (number);
  'sessionId': (number);
  'userId': (number);
}
