import type { DomainError, FieldIssue, proto, ServiceClient } from '@convo/kit';
import { checkInteractive } from '../../src/domain/interactive';
import { ChannelLookup } from '../../src/channels/channel-lookup';
import { SendChannels } from '../../src/domain/send-channels';
import { checkNumberSend, checkTemplateSend, isWabaContact } from '../../src/domain/send-checks';

// A contact's `number` in a send may be a BSUID or a LID, told apart by form
// (docs/api/contact-identities.md): these checks take every form a channel kind can reach.

const BSUID = 'BR.13491208655302741918';
const PARENT_BSUID = 'US.ENT.11815799212886844830';
const LID = '148592765938274@lid';

/** The fields of the validation error a check throws, or [] when it passes. */
const refused = (check: () => unknown): string[] => {
  try {
    check();
    return [];
  } catch (err) {
    return ((err as DomainError).details as FieldIssue[]).map((f) => f.field);
  }
};

const byNumber = (number: string) =>
  ({ tenantId: 1, ticketId: 0, number, channelId: 3, body: 'Hi' }) as proto.messaging.SendByTicketRequest__Output;
const template = (number: string) =>
  ({
    tenantId: 1,
    channelId: 3,
    number,
    name: 'order_update',
    language: 'pt_BR',
    componentsJson: '',
  }) as proto.messaging.SendTemplateRequest__Output;
const wabaButtons = (number: string) =>
  ({
    tenantId: 1,
    route: 'waba',
    type: 'button',
    json: '{}',
    number,
    channelId: 3,
    body: 'Confirm?',
  }) as proto.messaging.SendInteractiveRequest__Output;

describe('a send by number', () => {
  it('takes a number, a platform user id, a BSUID, a parent BSUID and a LID', () => {
    for (const number of ['+55 (11) 98765-4321', '27391827364519283', BSUID, PARENT_BSUID, LID])
      expect(refused(() => checkNumberSend(byNumber(number)))).toEqual([]);
  });

  it('refuses anything else, naming number', () => {
    for (const number of ['', '1234', 'BR.1349-1208', '123@lid', 'ana@example.com'])
      expect(refused(() => checkNumberSend(byNumber(number)))).toEqual(['number']);
  });
});

describe('the official channel by number (templates, sendButtonWABA, sendListWABA)', () => {
  it('takes a phone number, a BSUID or a parent BSUID', () => {
    for (const number of ['5511987654321', '+1 (415) 555-0100', BSUID, PARENT_BSUID]) {
      expect(isWabaContact(number)).toBe(true);
      expect(refused(() => checkTemplateSend(template(number)))).toEqual([]);
      expect(refused(() => checkInteractive(wabaButtons(number)))).toEqual([]);
    }
  });

  it("refuses a LID (an unofficial engine's) and ids longer than a phone number, naming number", () => {
    for (const number of [LID, '27391827364519283', 'BR.1349-1208', '']) {
      expect(isWabaContact(number)).toBe(false);
      expect(refused(() => checkTemplateSend(template(number)))).toEqual(['number']);
      expect(refused(() => checkInteractive(wabaButtons(number)))).toEqual(['number']);
    }
  });
});

describe('validateNumber', () => {
  const asked: string[] = [];
  const peers = {
    tenants: {} as ServiceClient<'tenants'>,
    engines: {
      CheckNumber: async (req: { number: string }) => {
        asked.push(req.number);
        return { exists: false };
      },
    } as unknown as ServiceClient<'channelEngines'>,
  };
  const channel = { id: 3, tenantId: 1, type: 'waba' } as proto.tenants.Channel__Output;

  it('asks the network about a phone number only: a BSUID or a LID passes unasked', async () => {
    const channels = new SendChannels(peers.engines, new ChannelLookup(peers.tenants, 0));
    await expect(channels.requireOnNetwork(channel, BSUID)).resolves.toBeUndefined();
    await expect(channels.requireOnNetwork({ ...channel, type: 'engine_a' }, LID)).resolves.toBeUndefined();
    expect(asked).toEqual([]);
    await expect(channels.requireOnNetwork(channel, '+55 11 98765-4321')).rejects.toMatchObject({ code: 'ERR_NUMBER_NOT_ON_NETWORK' });
    expect(asked).toEqual(['5511987654321']);
  });
});
