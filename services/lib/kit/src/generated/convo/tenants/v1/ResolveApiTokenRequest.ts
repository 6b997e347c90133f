// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface ResolveApiTokenRequest {
  'apiId'?: (string);
  'tokenSha256'?: (string);
}

export interface ResolveApiTokenRequest__Output {
  'apiId': (string);
  'tokenSha256': (string);
}
