// Original file: /work/main/protos/messaging/v1/messaging.proto


export interface Media {
  'url'?: (string);
  'mimeType'?: (string);
  'fileName'?: (string);
  'data'?: (Buffer | Uint8Array | string);
}

export interface Media__Output {
  'url': (string);
  'mimeType': (string);
  'fileName': (string);
  'data': (Buffer);
}
