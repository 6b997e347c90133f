import Fastify from 'fastify';
import { installErrorHandler } from '../../src/errors';
import { INTERACTIVE } from '../../src/schemas/interactive';
import { boundedValidatorCompiler } from '../../src/validation/compiler';

/** engine_c's carousel (uazapi's POST /send/carousel, which requires number, text and carousel) through the gateway's validator. */
describe('sendInteractive/engine_c/carousel', () => {
  const app = Fastify();
  app.setValidatorCompiler(boundedValidatorCompiler());
  installErrorHandler(app);
  const def = INTERACTIVE.find((d) => d.route === 'engine_c' && d.type === 'carousel')!;
  app.post('/v', { schema: { body: def.schema } }, async () => ({ success: true }));
  afterAll(() => app.close());

  const card = { text: 'Shirt', image: 'https://cdn.example/shirt.jpg', buttons: [{ text: 'Buy', type: 'REPLY' }] };
  const post = (payload: object) => app.inject({ method: 'POST', url: '/v', payload });

  it('refuses a carousel without its text, 400 naming text', async () => {
    const res = await post({ ticketId: 1, carousel: [card] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: 'ERR_VALIDATION',
      details: [{ field: 'text', message: expect.any(String) }],
    });
  });

  it('takes one with its text', async () => {
    expect((await post({ ticketId: 1, text: 'Our picks', carousel: [card] })).statusCode).toBe(200);
  });
});
