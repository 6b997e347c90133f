import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';

/** A ticket tag of a tenant (addTag/removeTag refer to its id). */
@ObjectType()
export class Tag {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field() name!: string;
  @Field(() => DateTime) createdAt!: string;
}

/** A queue (department) of a tenant (createTicket, updatequeue, updateticketinfo refer to its id). */
@ObjectType()
export class Queue {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field() name!: string;
  @Field(() => DateTime) createdAt!: string;
}
