// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto


export interface ChannelTarget {
  'id'?: (number);
  'tenantId'?: (number);
  'type'?: (string);
  'engineUrl'?: (string);
  'engineToken'?: (string);
  'tokenApi'?: (string);
  'bmToken'?: (string);
  'pageId'?: (string);
  'pageToken'?: (string);
}

export interface ChannelTarget__Output {
  'id': (number);
  'tenantId': (number);
  'type': (string);
  'engineUrl': (string);
  'engineToken': (string);
  'tokenApi': (string);
  'bmToken': (string);
  'pageId': (string);
  'pageToken': (string);
}
