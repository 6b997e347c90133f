// Original file: /work/main/protos/channel_engines/v1/channel_engines.proto


export interface ListDriversRequest {
}

export interface ListDriversRequest__Output {
}
