import { startFakeProvider, type FakeProvider, type ProviderRequest } from '@convo/test-support';
import { channelOf, failure, interactiveContent, settingsWith } from '../support/driver-fixtures';
import type { Driver } from '../../src/drivers/driver';
import { EngineADriver } from '../../src/drivers/engine-a.driver';
import { EngineBDriver } from '../../src/drivers/engine-b.driver';
import { EngineCDriver } from '../../src/drivers/engine-c.driver';
import { WhatsappDriver } from '../../src/drivers/whatsapp.driver';

// A waba channel's sendButtonWABA / sendListWABA carried by its linked engine (coexistence).
const accept = (req: ProviderRequest) => ({
  status: 200,
  body: { key: { id: 'WA-1', fromMe: true }, messageid: 'UAZ-1', id: 'o:UAZ-1', url: req.url },
});

const BUTTONS = { message: 'Did it arrive?', button1: 'Yes', button2: 'No', button3: 'Not yet' };
const LIST = {
  header: 'Plans',
  body: 'Pick one',
  footer: 'Acme',
  button_text: 'See plans',
  sections: [
    {
      title: 'Monthly',
      rows: [
        { id: 'basic', title: 'Basic', description: 'R$ 10' },
        { id: 'pro', title: 'Pro' },
      ],
    },
  ],
};

/** Generous: the machine is shared and slow; no test here waits for a timeout. */
const TIMEOUT_MS = 5_000;
let engine: FakeProvider;
beforeAll(async () => {
  engine = await startFakeProvider(accept);
});
afterAll(() => engine.close());
beforeEach(() => engine.reset());

const send = (driver: Driver, kind: string, type: string, json: unknown) =>
  driver.send({
    channel: channelOf(kind, { engineUrl: `${engine.url}/inst`, engineToken: 'tok' }),
    to: '5511987654321',
    content: interactiveContent(`waba/${type}`, json),
    reference: 'msg-1',
  });
const only = () => {
  expect(engine.requests).toHaveLength(1);
  return engine.requests[0];
};
const flow = (content: { interactiveMessage: { nativeFlowMessage: { buttons: Array<{ name: string; buttonParamsJson: string }> } } }) =>
  content.interactiveMessage.nativeFlowMessage.buttons.map((b) => ({ name: b.name, params: JSON.parse(b.buttonParamsJson) }));

describe('waba buttons and lists through the linked engine', () => {
  it('engine_a: quick replies whose ids are the titles (as the Cloud API sends them), a single_select list with the header in bold', async () => {
    const driver = new EngineADriver(settingsWith(TIMEOUT_MS));
    await send(driver, 'engine_a', 'button', BUTTONS);
    const buttons = only().body.content;
    expect(buttons.interactiveMessage.body).toEqual({ text: 'Did it arrive?' });
    expect(flow(buttons)).toEqual(['Yes', 'No', 'Not yet'].map((t) => ({ name: 'quick_reply', params: { display_text: t, id: t } })));

    engine.reset();
    await send(driver, 'engine_a', 'list', LIST);
    const list = only().body.content;
    expect(list.interactiveMessage).toMatchObject({ body: { text: '*Plans*\nPick one' }, footer: { text: 'Acme' } });
    expect(flow(list)).toEqual([
      {
        name: 'single_select',
        params: {
          title: 'See plans',
          sections: [
            {
              title: 'Monthly',
              rows: [
                { id: 'basic', title: 'Basic', description: 'R$ 10' },
                { id: 'pro', title: 'Pro', description: '' },
              ],
            },
          ],
        },
      },
    ]);
  });

  it("engine_b: Evolution's sendButtons and sendList", async () => {
    const driver = new EngineBDriver(settingsWith(TIMEOUT_MS));
    await send(driver, 'engine_b', 'button', BUTTONS);
    expect(only()).toMatchObject({
      url: '/message/sendButtons/inst',
      body: {
        title: 'Did it arrive?',
        buttons: [{ type: 'reply', displayText: 'Yes', id: 'Yes' }, { displayText: 'No' }, { displayText: 'Not yet' }],
      },
    });
    engine.reset();
    await send(driver, 'engine_b', 'list', LIST);
    expect(only()).toMatchObject({
      url: '/message/sendList/inst',
      body: {
        description: '*Plans*\nPick one',
        buttonText: 'See plans',
        footerText: 'Acme',
        sections: [{ title: 'Monthly', rows: [{ rowId: 'basic' }, { rowId: 'pro' }] }],
      },
    });
  });

  it("engine_c: uazapi's menus in its own strings", async () => {
    const driver = new EngineCDriver(settingsWith(TIMEOUT_MS));
    await send(driver, 'engine_c', 'button', BUTTONS);
    expect(only()).toMatchObject({
      url: '/inst/send/menu',
      body: { type: 'button', text: 'Did it arrive?', choices: ['Yes|Yes', 'No|No', 'Not yet|Not yet'] },
    });
    engine.reset();
    await send(driver, 'engine_c', 'list', LIST);
    expect(only()).toMatchObject({
      url: '/inst/send/menu',
      body: {
        type: 'list',
        text: '*Plans*\nPick one',
        listButton: 'See plans',
        footerText: 'Acme',
        choices: ['[Monthly]', 'Basic|basic|R$ 10', 'Pro|pro'],
      },
    });
  });

  it('refuses a template, a missing field, and an engine without interactive messages, before anything is sent', async () => {
    const a = new EngineADriver(settingsWith(TIMEOUT_MS));
    expect((await failure(send(a, 'engine_a', 'template', { name: 'welcome' }))).message).toContain(
      'waba/template cannot be sent through engine_a',
    );
    expect(JSON.stringify((await failure(send(a, 'engine_a', 'button', { message: 'Hi', button1: 'Yes' }))).details)).toContain('button2');
    expect((await failure(send(new WhatsappDriver(settingsWith(TIMEOUT_MS)), 'whatsapp', 'button', BUTTONS))).message).toContain(
      'cannot be sent through whatsapp',
    );
    expect(engine.requests).toHaveLength(0);
  });
});
