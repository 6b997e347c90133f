import { providerFailed, type Logger, type proto } from '@convo/kit';
import { createConnection } from 'mongoose';
import { DeliveriesRepository } from '../src/db/deliveries.repository';
import { EnginesService } from '../src/domain/engines.service';
import type { Driver } from '../src/drivers/driver';

// A provider call that fails (a timeout included, after which the provider may have the message
// and the dispatcher sends it again) is said in a warning that names the message it was for.
it('warns of a failed provider call with the message it carried', async () => {
  const timingOut: Driver = {
    kind: 'engine_test',
    send: async () => {
      throw providerFailed('engine_test is unreachable: no answer within 1000 ms');
    },
    parseInbound: () => [],
  };
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const log = {
    info: () => undefined,
    warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }),
    error: () => undefined,
  } as unknown as Logger;
  const engines = new EnginesService([timingOut], new DeliveriesRepository(createConnection()), log);
  const channel = { id: 5, tenantId: 9, type: 'engine_test' } as proto.channelEngines.ChannelTarget__Output;
  await expect(
    engines.deliver({
      channel,
      to: '5511987654321',
      content: { text: 'Hi' },
      reference: 'msg-1',
    } as proto.channelEngines.DeliverRequest__Output),
  ).rejects.toThrow('no answer within 1000 ms');
  expect(warnings).toEqual([
    {
      fields: { channelId: 5, driver: 'engine_test', reference: 'msg-1', error: 'engine_test is unreachable: no answer within 1000 ms' },
      message: 'delivery failed',
    },
  ]);
});
