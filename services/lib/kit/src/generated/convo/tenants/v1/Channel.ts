// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface Channel {
  'id'?: (number);
  'tenantId'?: (number);
  'name'?: (string);
  'status'?: (string);
  'type'?: (string);
  'tokenApi'?: (string);
  'wabaId'?: (string);
  'bmToken'?: (string);
  'hybridMode'?: (string);
  'linkedChannelId'?: (number);
  'engineUrl'?: (string);
  'engineToken'?: (string);
  'webhookEnabled'?: (boolean);
  'webhookUrl'?: (string);
  'webhookIncoming'?: (boolean);
  'pageId'?: (string);
  'pageToken'?: (string);
  'createdAt'?: (string);
  'updatedAt'?: (string);
  '_linkedChannelId'?: "linkedChannelId";
}

export interface Channel__Output {
  'id': (number);
  'tenantId': (number);
  'name': (string);
  'status': (string);
  'type': (string);
  'tokenApi': (string);
  'wabaId': (string);
  'bmToken': (string);
  'hybridMode': (string);
  'linkedChannelId'?: (number);
  'engineUrl': (string);
  'engineToken': (string);
  'webhookEnabled': (boolean);
  'webhookUrl': (string);
  'webhookIncoming': (boolean);
  'pageId': (string);
  'pageToken': (string);
  'createdAt': (string);
  'updatedAt': (string);
  '_linkedChannelId'?: "linkedChannelId";
}
