import { providerFailed, validation, type Logger, type proto } from '@convo/kit';
import { randomUUID } from 'node:crypto';
import type { DeliveriesRepository } from '../db/deliveries.repository';
import type { Driver } from '../drivers/driver';

export class EnginesService {
  private readonly drivers: Map<string, Driver>;

  constructor(
    drivers: Driver[],
    private readonly deliveries: DeliveriesRepository,
    private readonly log: Logger,
  ) {
    this.drivers = new Map(drivers.map((d) => [d.kind, d]));
  }

  kinds(): string[] {
    return [...this.drivers.keys()].sort();
  }

  async checkNumber(req: proto.channelEngines.CheckNumberRequest__Output) {
    const channel = req.channel;
    if (!channel) throw validation('channel is required', [{ field: 'channel', message: 'is required' }]);
    const driver = this.drivers.get(channel.type);
    if (!driver?.checkNumber) {
      throw validation(`Channel kind ${channel.type} cannot check numbers`, [
        { field: 'validateNumber', message: `not available on ${channel.type} channels` },
      ], 'ERR_VALIDATE_NUMBER_UNSUPPORTED');
    }
    return driver.checkNumber(channel, req.number);
  }

  async deliver(req: proto.channelEngines.DeliverRequest__Output) {
    const channel = req.channel;
    if (!channel) throw validation('channel is required', [{ field: 'channel', message: 'is required' }]);
    if (!req.to) throw validation('recipient is required', [{ field: 'to', message: 'is required' }]);
    const driver = this.drivers.get(channel.type);
    if (!driver) throw providerFailed(`No driver for channel kind ${channel.type}`);
    const started = Date.now();
    const base = { _id: randomUUID(), tenantId: channel.tenantId, channelId: channel.id, driver: driver.kind, to: req.to };
    try {
      const { providerMessageId } = await driver.send({ channel, to: req.to, content: req.content!, reference: req.reference });
      await this.deliveries.record({ ...base, providerMessageId, ok: true, error: '', durationMs: Date.now() - started, createdAt: new Date() });
      return { providerMessageId, driver: driver.kind };
    } catch (err) {
      const error = (err as Error).message;
      this.log.warn({ channelId: channel.id, driver: driver.kind, error }, 'delivery failed');
      await this.deliveries.record({ ...base, providerMessageId: '', ok: false, error, durationMs: Date.now() - started, createdAt: new Date() });
      throw err;
    }
  }
}
