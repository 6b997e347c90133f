// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto


export interface OutboundContent {
  'text'?: (string);
  'mediaUrl'?: (string);
  'mimeType'?: (string);
  'fileName'?: (string);
}

export interface OutboundContent__Output {
  'text': (string);
  'mediaUrl': (string);
  'mimeType': (string);
  'fileName': (string);
}
