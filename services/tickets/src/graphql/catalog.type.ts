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

/** A kanban column of a tenant (createTicket, updateticketinfo, updateContactKanban refer to its id). */
@ObjectType()
export class Kanban {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field() name!: string;
  @Field(() => Int, { nullable: true }) position?: number | null;
  @Field(() => DateTime) createdAt!: string;
}

/** A reason a ticket was closed or moved, of a tenant (createTicket and updateticketinfo's reasonId). */
@ObjectType()
export class Reason {
  @Field(() => Int) id!: number;
  @Field(() => Int) tenantId!: number;
  @Field() name!: string;
  @Field(() => DateTime) createdAt!: string;
}

/** What deleting a kanban column or reason did. */
@ObjectType()
export class CatalogDeletion {
  @Field(() => Int) id!: number;
  @Field(() => Int, { description: 'Tickets that carried it and no longer do' }) ticketsCleared!: number;
}
