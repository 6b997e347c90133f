// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface GatewayCredentials {
  'customerId'?: (string);
  'token'?: (string);
}

export interface GatewayCredentials__Output {
  'customerId': (string);
  'token': (string);
}
