import { Directive, Field, Int, ObjectType } from 'type-graphql';
import { domainEnum } from '@convo/kit/graphql/enums';
import { DateTime } from '@convo/kit/graphql/scalars';
import { MENU_ITEM_TYPES, type MenuItemDoc } from '../domain/profiles.service';

export const MenuItemTypeEnum = domainEnum(MENU_ITEM_TYPES, 'MenuItemType', 'postback: sends its payload back; web_url: opens its url.');

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

@ObjectType()
export class MenuItem {
  @Field(() => MenuItemTypeEnum) type!: MenuItemDoc['type'];
  @Field() title!: string;
  @Field(() => String, { nullable: true, description: 'postback items' }) payload?: string | null;
  @Field(() => String, { nullable: true, description: 'web_url items' }) url?: string | null;
}

@ObjectType()
export class PersistentMenu {
  @Field() composerInputDisabled!: boolean;
  @Field(() => [MenuItem]) menuItems!: MenuItem[];
}

@ObjectType({ description: 'A persona created through the personas endpoint' })
export class Persona {
  @Field() personaId!: string;
  @Field() name!: string;
  @Field() profilePictureUrl!: string;
  @Field(() => DateTime) createdAt!: string;
}

@Directive('@key(fields: "channelId")')
@ObjectType()
export class ChannelProfile {
  @Field(() => Int) channelId!: number;
  @Field(() => Int) tenantId!: number;
  @Field(() => [IceBreaker]) iceBreakers!: IceBreaker[];
  @Field(() => [Greeting]) greetings!: Greeting[];
  @Field(() => PersistentMenu, { nullable: true, description: 'null when no menu is set' }) persistentMenu!: PersistentMenu | null;
  @Field(() => [Persona]) personas!: Persona[];
  @Field(() => DateTime) updatedAt!: string;
}
