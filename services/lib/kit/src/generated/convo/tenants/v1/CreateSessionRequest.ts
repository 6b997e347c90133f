// Original file: /work/main/protos/tenants/v1/tenants.proto


export interface CreateSessionRequest {
  'tenant'?: (number);
  'name'?: (string);
  'status'?: (string);
  'type'?: (string);
  'tokenApi'?: (string);
  'wabaId'?: (string);
  'bmToken'?: (string);
  'hybridMode'?: (string);
  'linkedChannelId'?: (number);
  'linkToWhatsappId'?: (number);
  'engineUrl'?: (string);
  'engineToken'?: (string);
  'webhookEnabled'?: (boolean);
  'webhookUrl'?: (string);
  'webhookIncoming'?: (boolean);
  'pageId'?: (string);
  'pageToken'?: (string);
  '_linkedChannelId'?: "linkedChannelId";
  '_linkToWhatsappId'?: "linkToWhatsappId";
}

export interface CreateSessionRequest__Output {
  'tenant': (number);
  'name': (string);
  'status': (string);
  'type': (string);
  'tokenApi': (string);
  'wabaId': (string);
  'bmToken': (string);
  'hybridMode': (string);
  'linkedChannelId'?: (number);
  'linkToWhatsappId'?: (number);
  'engineUrl': (string);
  'engineToken': (string);
  'webhookEnabled': (boolean);
  'webhookUrl': (string);
  'webhookIncoming': (boolean);
  'pageId': (string);
  'pageToken': (string);
  '_linkedChannelId'?: "linkedChannelId";
  '_linkToWhatsappId'?: "linkToWhatsappId";
}
