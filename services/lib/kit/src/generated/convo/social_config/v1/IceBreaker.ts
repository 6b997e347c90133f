// Original file: /work/main/protos/social_config/v1/social_config.proto


export interface IceBreaker {
  'question'?: (string);
  'payload'?: (string);
}

export interface IceBreaker__Output {
  'question': (string);
  'payload': (string);
}
