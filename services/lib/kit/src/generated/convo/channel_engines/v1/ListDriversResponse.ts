// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto


export interface ListDriversResponse {
  'kinds'?: (string)[];
}

export interface ListDriversResponse__Output {
  'kinds': (string)[];
}
