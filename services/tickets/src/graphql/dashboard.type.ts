import { Field, Int, ObjectType } from 'type-graphql';
import { DateTime } from '@convo/kit/graphql/scalars';
import { Ticket } from './ticket.type';

@ObjectType()
export class PageInfo {
  @Field() hasNextPage!: boolean;
  @Field(() => String, { nullable: true, description: 'Pass as `after` for the next page.' }) endCursor!: string | null;
}

@ObjectType({ description: 'A page of tickets, newest activity first.' })
export class TicketConnection {
  @Field(() => [Ticket]) nodes!: Ticket[];
  @Field(() => PageInfo) pageInfo!: PageInfo;
  @Field(() => Int, { description: 'Tickets matching the filters, over all pages.' }) totalCount!: number;
}

@ObjectType()
export class TicketCount {
  @Field(() => String, { nullable: true, description: 'The status, or the queue / channel id as text (null: none).' }) key!: string | null;
  @Field(() => Int) count!: number;
}

@ObjectType()
export class TicketCounts {
  @Field(() => [TicketCount]) byStatus!: TicketCount[];
  @Field(() => [TicketCount]) byQueue!: TicketCount[];
  @Field(() => [TicketCount]) byChannel!: TicketCount[];
}

@ObjectType('TicketNote')
export class TicketNote {
  @Field(() => Int) id!: number;
  @Field() notes!: string;
  @Field(() => Int, { nullable: true }) userId!: number | null;
  @Field(() => DateTime) createdAt!: string;
}
