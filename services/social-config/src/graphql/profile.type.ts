import { Directive, Field, Int, ObjectType } from 'type-graphql';

@ObjectType()
export class IceBreaker {
  @Field() question!: string;
  @Field() payload!: string;
}

@ObjectType()
export class Greeting {
  @Field() locale!: string;
  @Field() text!: string;
}

@Directive('@key(fields: "channelId")')
@ObjectType()
export class ChannelProfile {
  @Field(() => Int) channelId!: number;
  @Field(() => Int) tenantId!: number;
  @Field(() => [IceBreaker]) iceBreakers!: IceBreaker[];
  @Field(() => [Greeting]) greetings!: Greeting[];
  @Field() updatedAt!: string;
}
