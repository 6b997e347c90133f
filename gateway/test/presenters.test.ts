import type { proto } from '@convo/kit';
import { contactRecord, ticketRecord } from '../src/presenters';

// A contact known only by its BSUID or LID holds that identity in `number` inside the services, as
// its key: no answer shows it there (docs/api/contact-identities.md).

const BSUID = 'BR.13491208655302741918';
const LID = '148592765938274@lid';

const contactOf = (fields: Partial<proto.tickets.Contact__Output>): proto.tickets.Contact__Output => ({
  id: 9,
  number: '',
  name: 'Ana',
  email: '',
  lastInboundAt: '',
  bsuid: '',
  parentBsuid: '',
  lid: '',
  username: '',
  ...fields,
});
const ticketOf = (contact: proto.tickets.Contact__Output) =>
  ({
    id: 42,
    tenantId: 1,
    channelId: 3,
    status: 'open',
    contact,
    externalKey: '',
    botBuilderStatus: false,
    llmAssistantStatus: false,
    workflowStatus: false,
    tagIds: [],
    createdAt: '',
    updatedAt: '',
    closedAt: '',
    paused: false,
    pauseReason: '',
    pausedAt: '',
    evaluation: null,
  }) as unknown as proto.tickets.Ticket__Output;
const recordOf = (fields: Partial<proto.tickets.ContactRecord__Output>): proto.tickets.ContactRecord__Output => ({
  id: 9,
  tenantId: 1,
  channelId: 3,
  number: '',
  name: 'Ana',
  email: '',
  firstName: '',
  lastName: '',
  businessName: '',
  externalKey: '',
  tagIds: [],
  walletIds: [],
  extraInfo: [],
  createdAt: '',
  updatedAt: '',
  bsuid: '',
  parentBsuid: '',
  lid: '',
  username: '',
  ...fields,
});

describe("a ticket record's contact", () => {
  it('shows a contact known only by its BSUID with number "" and the BSUID beside it', () => {
    const { contact } = ticketRecord(ticketOf(contactOf({ number: BSUID, bsuid: BSUID, username: 'ana.souza' })));
    expect(contact).toEqual({ id: 9, number: '', bsuid: BSUID, username: 'ana.souza', name: 'Ana', email: null });
  });

  it('shows a number with the LID linked to it, and leaves out what is unknown', () => {
    const { contact } = ticketRecord(ticketOf(contactOf({ number: '5511912345678', lid: LID })));
    expect(contact).toEqual({ id: 9, number: '5511912345678', lid: LID, name: 'Ana', email: null });
  });

  it('shows a contact known only by its LID with number ""', () => {
    expect(ticketRecord(ticketOf(contactOf({ number: LID, lid: LID }))).contact).toEqual({
      id: 9,
      number: '',
      lid: LID,
      name: 'Ana',
      email: null,
    });
  });

  it('shows a platform user id (social channels) and an e-mail contact as before', () => {
    expect(ticketRecord(ticketOf(contactOf({ number: '27391827364519283' }))).contact).toEqual({
      id: 9,
      number: '27391827364519283',
      name: 'Ana',
      email: null,
    });
    expect(ticketRecord(ticketOf(contactOf({ email: 'ana@example.com' }))).contact).toEqual({
      id: 9,
      number: '',
      name: 'Ana',
      email: 'ana@example.com',
    });
  });
});

describe('a contact record', () => {
  it('shows a contact known only by its BSUID with number "", its BSUID, parent BSUID and username', () => {
    const shown = contactRecord(
      recordOf({ number: BSUID, bsuid: BSUID, parentBsuid: 'US.ENT.11815799212886844830', username: 'ana.souza' }),
    );
    expect(shown).toMatchObject({
      id: 9,
      number: '',
      bsuid: BSUID,
      parentBsuid: 'US.ENT.11815799212886844830',
      username: 'ana.souza',
      name: 'Ana',
    });
    expect(shown).not.toHaveProperty('lid');
  });

  it('shows a phone contact with no other identity exactly as before', () => {
    const shown = contactRecord(recordOf({ number: '5511987654321' }));
    expect(shown.number).toBe('5511987654321');
    expect(['bsuid', 'parentBsuid', 'lid', 'username'].filter((k) => k in shown)).toEqual([]);
  });
});
