import type { proto } from '@convo/kit';
import Fastify from 'fastify';
import type { Authenticator } from '../src/auth';
import type { Clients } from '../src/clients';
import { installErrorHandler } from '../src/errors';
import { externalApi } from '../src/routes/external';
import { boundedValidatorCompiler } from '../src/validation/compiler';
import { installBoundedJsonParser } from '../src/validation/json-parser';

// Every field that takes a contact's `number` also takes a BSUID or a LID, told apart by form
// (docs/api/contact-identities.md); a malformed one is refused by the route's schema, naming it.

const BSUID = 'BR.13491208655302741918';
const PARENT_BSUID = 'US.ENT.11815799212886844830';
const LID = '148592765938274@lid';

const contact: proto.tickets.ContactRecord__Output = {
  id: 9,
  tenantId: 1,
  channelId: 3,
  number: BSUID,
  name: 'Ana',
  email: '',
  firstName: '',
  lastName: '',
  businessName: '',
  externalKey: '',
  tagIds: [],
  walletIds: [],
  extraInfo: [],
  createdAt: '2026-11-26T12:00:00.000Z',
  updatedAt: '2026-11-26T12:00:00.000Z',
  bsuid: BSUID,
  parentBsuid: '',
  lid: '',
  username: 'ana.souza',
};
const ticket = {
  id: 42,
  tenantId: 1,
  channelId: 3,
  status: 'open',
  contact: { id: 9, number: BSUID, name: 'Ana', email: '', lastInboundAt: '', bsuid: BSUID, parentBsuid: '', lid: '', username: '' },
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
};
const accepted = { messageId: 'm-1', ticketId: 42, status: 'queued', idempotent: false, skipped: false };

/** What each peer method answers here; every call is recorded with its request. */
const ANSWERS: Record<string, unknown> = {
  'tickets.GetContact': contact,
  'tickets.CreateContact': { contact, created: true },
  'tickets.UpdateContact': contact,
  'tickets.FindContactTickets': { tickets: [ticket] },
  'messaging.LastMessages': { messages: [] },
  'messaging.OpenTicket': { ticket, created: true, messageId: 'm-1' },
  'messaging.SendByTicket': accepted,
  'messaging.SendTemplate': accepted,
  'messaging.SendInteractive': { ticketId: 42, messageId: 'm-1' },
};

describe('contact identities in the fields that take a number', () => {
  const calls: Array<{ method: string; req: Record<string, unknown> }> = [];
  const clients = new Proxy({} as Clients, {
    get: (_, service: string) =>
      new Proxy(
        {},
        {
          get: (__, method: string) => async (req: Record<string, unknown>) => {
            calls.push({ method: `${service}.${method}`, req });
            if (!(`${service}.${method}` in ANSWERS)) throw new Error(`unexpected call ${service}.${method}`);
            return ANSWERS[`${service}.${method}`];
          },
        },
      ),
  });
  const auth = {
    external: async (req: { principal?: unknown }) => {
      req.principal = { apiId: 'api-1', tenantId: 1, sessionId: 3, userId: 1 };
    },
  } as unknown as Authenticator;
  const app = Fastify();
  app.setValidatorCompiler(boundedValidatorCompiler());
  installBoundedJsonParser(app);
  installErrorHandler(app);
  beforeAll(async () => {
    await app.register(externalApi, { prefix: '/v2/api/external/:apiId', clients, auth, mediaMaxBytes: 1024, mediaBodyLimit: 4096 });
    await app.ready();
  });
  afterAll(() => app.close());
  const post = (route: string, payload: object) => {
    calls.length = 0;
    return app.inject({ method: 'POST', url: `/v2/api/external/api-1/${route === '{root}' ? '' : route}`, payload });
  };
  /** The request the route made of `method`. */
  const sent = (method: string) => calls.find((c) => c.method === method)?.req;

  const BODIES: Array<[route: string, body: (number: string) => object, method: string]> = [
    ['createTicket', (number) => ({ number, body: 'Hi' }), 'messaging.OpenTicket'],
    ['{root}', (number) => ({ number, body: 'Hi' }), 'messaging.SendByTicket'],
    ['url', (number) => ({ number, mediaUrl: 'https://example.com/a.pdf' }), 'messaging.SendByTicket'],
    ['base64', (number) => ({ number, base64Data: 'aGk=', mimeType: 'text/plain', fileName: 'hi' }), 'messaging.SendByTicket'],
    ['voice', (number) => ({ number, audio: 'https://example.com/a.ogg' }), 'messaging.SendByTicket'],
    ['showcontact', (number) => ({ number }), 'tickets.GetContact'],
    ['createContact', (number) => ({ number, name: 'Ana' }), 'tickets.CreateContact'],
    ['updateContact', (number) => ({ number, name: 'Ana' }), 'tickets.UpdateContact'],
    ['showticket', (number) => ({ number }), 'tickets.FindContactTickets'],
    ['showallticket', (number) => ({ number }), 'tickets.FindContactTickets'],
  ];
  /** The official channel's routes: a number or a BSUID, never a LID. */
  const WABA_BODIES: Array<[route: string, body: (number: string) => object, method: string]> = [
    ['template', (number) => ({ number, templateName: 'order_update', templateLangCode: 'pt_BR' }), 'messaging.SendTemplate'],
    ['sendButtonWABA', (number) => ({ number, message: 'Pick one', button1: 'Yes', button2: 'No' }), 'messaging.SendInteractive'],
    [
      'sendListWABA',
      (number) => ({ number, body: 'Pick', button_text: 'Open', sections: [{ title: 'A', rows: [{ id: 'a', title: 'A' }] }] }),
      'messaging.SendInteractive',
    ],
  ];

  it.each(BODIES)('%s takes a BSUID, a parent BSUID and a LID in `number` and hands them on as given', async (route, body, method) => {
    for (const id of [BSUID, PARENT_BSUID, LID]) {
      const res = await post(route, body(id));
      expect({ id, status: res.statusCode }).toEqual({ id, status: 200 });
      const req = sent(method)!;
      expect(req.number ?? (req.ticket as { number: string }).number).toBe(id);
    }
  });

  it.each(WABA_BODIES)('%s takes a BSUID or a parent BSUID, and refuses a LID naming `number`', async (route, body, method) => {
    for (const id of [BSUID, PARENT_BSUID]) {
      expect((await post(route, body(id))).statusCode).toBe(200);
      expect(sent(method)!.number).toBe(id);
    }
    const res = await post(route, body(LID));
    expect(res.statusCode).toBe(400);
    expect(res.json().details.map((d: { field: string }) => d.field)).toContain('number');
  });

  it('sends by number still hand on the digits of a number written with + and separators', async () => {
    await post('{root}', { number: '+55 (11) 98765-4321', body: 'Hi' });
    expect(sent('messaging.SendByTicket')!.number).toBe('5511987654321');
    await post('sendButtonWABA', { number: '+55 11 98765-4321', message: 'Pick one', button1: 'Yes', button2: 'No' });
    expect(sent('messaging.SendInteractive')!.number).toBe('5511987654321');
  });

  it("takes a template's contact under the Cloud API's own names: `to`, or `recipient` for a BSUID", async () => {
    const template = { name: 'order_update', language: { code: 'pt_BR' } };
    await post('template', {
      templateData: { messaging_product: 'whatsapp', recipient_type: 'individual', recipient: BSUID, type: 'template', template },
    });
    expect(sent('messaging.SendTemplate')!.number).toBe(BSUID);
    await post('template', { templateData: { messaging_product: 'whatsapp', to: '+5511987654321', type: 'template', template } });
    expect(sent('messaging.SendTemplate')!.number).toBe('5511987654321');
    const none = await post('template', { templateData: { type: 'template', template } });
    expect(none.statusCode).toBe(400);
    expect(none.json().details).toEqual([{ field: 'number', message: 'is required' }]);
  });

  const MALFORMED = [
    'BR.1349-1208',
    'BR.1349 1208',
    'br.13491208655302741918',
    'BRA.13491208655302741918',
    'BR.',
    'BR.ENT.',
    '123@lid',
    '12345@lid',
    '0123456789@lid',
    '148592765938274@LID',
    '148592765938274@lid.x',
    '148592765938274@s.whatsapp.net',
    `BR.${'1'.repeat(197)}`,
    '5'.repeat(200),
  ];

  it.each(BODIES.concat(WABA_BODIES))(
    '%s refuses a malformed identity with 400 ERR_VALIDATION naming `number`, calling nothing',
    async (route, body) => {
      for (const id of MALFORMED) {
        const res = await post(route, body(id));
        expect({ id, status: res.statusCode, error: res.json().error }).toEqual({ id, status: 400, error: 'ERR_VALIDATION' });
        expect(res.json().details.map((d: { field: string }) => d.field)).toContain('number');
        expect(calls).toEqual([]);
      }
    },
  );

  it('shows a contact known only by its BSUID with number "" and its identities', async () => {
    const shown = (await post('showcontact', { number: BSUID })).json().data;
    expect(shown).toMatchObject({ id: 9, number: '', bsuid: BSUID, username: 'ana.souza' });
    expect(shown).not.toHaveProperty('lid');
    const record = (await post('showticket', { number: BSUID })).json().data;
    expect(record.contact).toEqual({ id: 9, number: '', bsuid: BSUID, name: 'Ana', email: null });
  });
});
