// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface ApiIntegration {
  'apiId'?: (string);
  'name'?: (string);
  'sessionId'?: (number);
  'urlServiceStatus'?: (string);
  'urlMessageStatus'?: (string);
  'userId'?: (number);
  'tenant'?: (number);
  'authToken'?: (string);
  'createdAt'?: (string);
}

export interface ApiIntegration__Output {
  'apiId': (string);
  'name': (string);
  'sessionId': (number);
  'urlServiceStatus': (string);
  'urlMessageStatus': (string);
  'userId': (number);
  'tenant': (number);
  'authToken': (string);
  'createdAt': (string);
}
