// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface Tenant {
  'id'?: (number);
  'name'?: (string);
  'status'?: (string);
  'maxUsers'?: (number);
  'maxConnections'?: (number);
  'identity'?: (string);
  'planId'?: (number);
  'paymentGateway'?: (string);
  'gatewayAEnabled'?: (boolean);
  'paymentStatus'?: (string);
  'createdAt'?: (string);
  'updatedAt'?: (string);
  '_planId'?: "planId";
}

export interface Tenant__Output {
  'id': (number);
  'name': (string);
  'status': (string);
  'maxUsers': (number);
  'maxConnections': (number);
  'identity': (string);
  'planId'?: (number);
  'paymentGateway': (string);
  'gatewayAEnabled': (boolean);
  'paymentStatus': (string);
  'createdAt': (string);
  'updatedAt': (string);
  '_planId'?: "planId";
}
