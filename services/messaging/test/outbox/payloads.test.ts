import type { proto } from '@convo/kit';
import type { MessageDoc } from '../../src/db/models';
import { messagePayload, type Sender, ticketSummary } from '../../src/outbox/payloads';

// The customer webhook bodies show a contact as every answer does (docs/api/contact-identities.md):
// `number` never shows the BSUID or LID a contact known only by it is keyed by.

const BSUID = 'BR.13491208655302741918';
const LID = '148592765938274@lid';

const ticketOf = (contact: Partial<proto.tickets.Contact__Output>) =>
  ({
    id: 12,
    status: 'pending',
    channelId: 3,
    createdAt: '2026-11-21T22:39:58.101Z',
    updatedAt: '2026-11-21T22:40:03.498Z',
    contact: {
      id: 8,
      number: '',
      name: 'Ana Souza',
      email: '',
      lastInboundAt: '',
      bsuid: '',
      parentBsuid: '',
      lid: '',
      username: '',
      ...contact,
    },
  }) as proto.tickets.Ticket__Output;

const incoming: MessageDoc = {
  _id: 'in:3:wamid.1',
  tenantId: 1,
  channelId: 3,
  ticketId: 12,
  direction: 'in',
  status: 'delivered',
  body: 'Hi',
  to: '',
  providerMessageId: 'wamid.1',
  createdAt: new Date('2026-11-21T22:40:03.512Z'),
  updatedAt: new Date('2026-11-21T22:40:03.512Z'),
};
const sender = (fields: Partial<Sender>): Sender => ({ number: '', name: 'Ana Souza', email: '', ...fields });

describe("the webhook's ticket.contact", () => {
  it('shows a contact known only by its BSUID with number "" and its BSUID and username', () => {
    expect(ticketSummary(ticketOf({ number: BSUID, bsuid: BSUID, username: 'ana.souza' })).contact).toEqual({
      id: 8,
      number: '',
      bsuid: BSUID,
      username: 'ana.souza',
      name: 'Ana Souza',
      email: null,
    });
  });

  it('shows a number with its LID, and a phone contact exactly as before', () => {
    expect(ticketSummary(ticketOf({ number: '5511912345678', lid: LID })).contact).toEqual({
      id: 8,
      number: '5511912345678',
      lid: LID,
      name: 'Ana Souza',
      email: null,
    });
    expect(ticketSummary(ticketOf({ number: '5511987654321' })).contact).toEqual({
      id: 8,
      number: '5511987654321',
      name: 'Ana Souza',
      email: null,
    });
  });
});

describe('the message webhook', () => {
  const channel = { id: 3, type: 'waba' };

  it('names a sender known only by its BSUID: from null, its BSUID, parent BSUID and username beside it', () => {
    const body = messagePayload(
      incoming,
      ticketOf({ number: BSUID, bsuid: BSUID }),
      channel,
      sender({ bsuid: BSUID, parentBsuid: 'BR.ENT.99887766554433221100', username: 'ana.souza' }),
      '',
    );
    expect(body.msg).toMatchObject({
      from: null,
      bsuid: BSUID,
      parentBsuid: 'BR.ENT.99887766554433221100',
      username: 'ana.souza',
      contactName: 'Ana Souza',
    });
    expect(body.msg).not.toHaveProperty('lid');
    expect(body.ticket.contact).toMatchObject({ number: '', bsuid: BSUID });
  });

  it('names an engine sender by its number and its LID, and never shows a LID as the number', () => {
    const both = messagePayload(
      incoming,
      ticketOf({ number: '5511912345678', lid: LID }),
      { id: 5, type: 'engine_a' },
      sender({ number: '5511912345678', lid: LID }),
      '',
    );
    expect(both.msg).toMatchObject({ from: '5511912345678', lid: LID });
    const lidOnly = messagePayload(
      incoming,
      ticketOf({ number: LID, lid: LID }),
      { id: 5, type: 'engine_a' },
      sender({ number: LID, lid: LID }),
      '',
    );
    expect(lidOnly.msg).toMatchObject({ from: null, lid: LID });
    expect(lidOnly.ticket.contact).toMatchObject({ number: '', lid: LID });
  });

  it('keeps the fields of a phone sender as they were, adding none', () => {
    const body = messagePayload(
      incoming,
      ticketOf({ number: '5511987654321' }),
      channel,
      sender({ number: '5511987654321', bsuid: '', lid: '', username: '' }),
      '',
    );
    expect(Object.keys(body.msg).slice(0, 9)).toEqual([
      'messageId',
      'ticketId',
      'whatsappId',
      'channelType',
      'direction',
      'fromMe',
      'from',
      'contactName',
      'email',
    ]);
    expect(body.msg.from).toBe('5511987654321');
    expect(['bsuid', 'parentBsuid', 'lid', 'username'].filter((k) => k in body.msg)).toEqual([]);
  });
});
