// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface ShowTenantRequest {
  'id'?: (number);
}

export interface ShowTenantRequest__Output {
  'id': (number);
}
