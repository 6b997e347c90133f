import Fastify from 'fastify';
import type { Authenticator } from '../src/auth';
import type { Clients } from '../src/clients';
import { installErrorHandler } from '../src/errors';
import { externalApi } from '../src/routes/external';
import { boundedValidatorCompiler } from '../src/validation/compiler';
import { installBoundedJsonParser } from '../src/validation/json-parser';

// sendReaction, editMessage, deleteMessage at the gateway: the validation of each body, and the one
// SendChange call each valid request becomes (messaging decides the rest: its own tests).

const MESSAGE_ID = '0193b6f2-5c1e-7a10-9e2b-3c4d5e6f7a8b';

describe('conversation changes', () => {
  const calls: Array<Record<string, unknown>> = [];
  const clients = {
    messaging: {
      SendChange: async (req: Record<string, unknown>) => {
        calls.push(req);
        return { ticketId: 42, messageId: req.messageId, changeId: 'change-1' };
      },
    },
  } as unknown as Clients;
  const auth = {
    external: async (req: { principal?: unknown }) => {
      req.principal = { apiId: 'api-1', tenantId: 7, sessionId: 3, userId: 1 };
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
  beforeEach(() => (calls.length = 0));
  const post = (route: string, payload: object) => app.inject({ method: 'POST', url: `/v2/api/external/api-1/${route}`, payload });
  const fields = (res: { json(): { details?: Array<{ field: string }> } }) => (res.json().details ?? []).map((d) => d.field);

  it('sendReaction by ticket or by number, "" removing', async () => {
    const res = await post('sendReaction', { ticketId: '42', messageId: MESSAGE_ID, emoji: '👍' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: { message: 'Reaction accepted for delivery', ticketId: 42, messageId: MESSAGE_ID, changeId: 'change-1' },
    });
    expect(calls).toEqual([{ tenantId: 7, channelId: 3, change: 'react', messageId: MESSAGE_ID, ticketId: 42, number: '', emoji: '👍' }]);

    calls.length = 0;
    expect((await post('sendReaction', { number: '+55 11 98765-4321', messageId: MESSAGE_ID, emoji: '' })).statusCode).toBe(200);
    expect(calls[0]).toMatchObject({ ticketId: 0, number: '5511987654321', emoji: '' });
  });

  it.each([
    [{ messageId: MESSAGE_ID, emoji: '👍' }, 'ticketId'],
    [{ ticketId: 42, number: '5511987654321', messageId: MESSAGE_ID, emoji: '👍' }, 'number'],
    [{ ticketId: 42, emoji: '👍' }, 'messageId'],
    [{ ticketId: 42, messageId: MESSAGE_ID }, 'emoji'],
    [{ ticketId: 42, messageId: MESSAGE_ID, emoji: '👍'.repeat(33) }, 'emoji'],
    [{ ticketId: 2147483648, messageId: MESSAGE_ID, emoji: '👍' }, 'ticketId'],
    [{ ticketId: 42, messageId: 'x'.repeat(201), emoji: '👍' }, 'messageId'],
  ])('sendReaction refuses %j (%s)', async (body, field) => {
    const res = await post('sendReaction', body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('ERR_VALIDATION');
    expect(fields(res)).toContain(field);
    expect(calls).toEqual([]);
  });

  it('editMessage and deleteMessage', async () => {
    const edit = await post('editMessage', { messageId: MESSAGE_ID, body: 'See you at 3 pm' });
    expect(edit.json().data).toEqual({ message: 'Edit accepted for delivery', ticketId: 42, messageId: MESSAGE_ID, changeId: 'change-1' });
    const removal = await post('deleteMessage', { messageId: MESSAGE_ID });
    expect(removal.json().data.message).toBe('Deletion accepted for delivery');
    expect(calls).toEqual([
      { tenantId: 7, channelId: 3, change: 'edit', messageId: MESSAGE_ID, body: 'See you at 3 pm' },
      { tenantId: 7, channelId: 3, change: 'delete', messageId: MESSAGE_ID },
    ]);
  });

  it.each([
    ['editMessage', { messageId: MESSAGE_ID }, 'body'],
    ['editMessage', { messageId: MESSAGE_ID, body: '' }, 'body'],
    ['editMessage', { messageId: MESSAGE_ID, body: 'x'.repeat(4097) }, 'body'],
    ['editMessage', { body: 'New' }, 'messageId'],
    ['deleteMessage', {}, 'messageId'],
    ['deleteMessage', { messageId: '' }, 'messageId'],
  ])('%s refuses %j (%s)', async (route, body, field) => {
    const res = await post(route, body);
    expect(res.statusCode).toBe(400);
    expect(fields(res)).toContain(field);
    expect(calls).toEqual([]);
  });
});
