// Original file: /work/main/protos/tenants/v1/tenants.proto

import type { GatewayCredentials as _convo_tenants_v1_GatewayCredentials, GatewayCredentials__Output as _convo_tenants_v1_GatewayCredentials__Output } from '../../../convo/tenants/v1/GatewayCredentials';

export interface StoreTenantRequest {
  'status'?: (string);
  'name'?: (string);
  'maxUsers'?: (number);
  'maxConnections'?: (number);
  'acceptTerms'?: (boolean);
  'email'?: (string);
  'password'?: (string);
  'userName'?: (string);
  'profile'?: (string);
  'planId'?: (number);
  'paymentGateway'?: (string);
  'gatewayCredentials'?: (_convo_tenants_v1_GatewayCredentials | null);
  'gatewayAEnabled'?: (boolean);
  'identity'?: (string);
  '_planId'?: "planId";
}

export interface StoreTenantRequest__Output {
  'status': (string);
  'name': (string);
  'maxUsers': (number);
  'maxConnections': (number);
  'acceptTerms': (boolean);
  'email': (string);
  'password': (string);
  'userName': (string);
  'profile': (string);
  'planId'?: (number);
  'paymentGateway': (string);
  'gatewayCredentials': (_convo_tenants_v1_GatewayCredentials__Output | null);
  'gatewayAEnabled': (boolean);
  'identity': (string);
  '_planId'?: "planId";
}
