// Original file: /work/main/protos/social_config/v1/social_config.proto


export interface Greeting {
  'locale'?: (string);
  'text'?: (string);
}

export interface Greeting__Output {
  'locale': (string);
  'text': (string);
}
