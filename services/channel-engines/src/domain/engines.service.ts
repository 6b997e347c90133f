import { checkPageSize, Issues, type MessageChange, providerFailed, takesChange, validation, type Logger, type proto } from '@convo/kit';
import { randomUUID } from 'node:crypto';
import type { DeliveriesRepository, DeliveryDoc } from '../db/deliveries.repository';

export type { DeliveryDoc };

/** The most provider calls one listing returns. */
export const MAX_DELIVERIES = 500;
import type { Driver, Outbound } from '../drivers/driver';
import type { TemplateCatalogs } from '../drivers/waba-templates';
import { WebchatDriver } from '../drivers/webchat.driver';
import { isTransient, observeProviderCall } from './provider-metrics';
import { parseMetaWebhook } from '../inbound/meta.parser';
import { parseTemplateChanges } from '../inbound/meta-templates';

export class EnginesService {
  private readonly drivers: Map<string, Driver>;

  constructor(
    drivers: Driver[],
    private readonly deliveries: DeliveriesRepository,
    private readonly log: Logger,
    private readonly templates?: TemplateCatalogs,
  ) {
    this.drivers = new Map(drivers.map((d) => [d.kind, d]));
  }

  /** Graceful stop: the drivers' connections, and the call records still waiting to be written. */
  async close(): Promise<void> {
    await Promise.all([...this.drivers.values()].map((d) => d.close?.()));
    await this.deliveries.flush();
  }

  /** The latest provider calls of a channel, newest first (at most MAX_DELIVERIES). */
  async listDeliveries(channelId: number, limit: number): Promise<DeliveryDoc[]> {
    checkPageSize(limit, MAX_DELIVERIES, 'limit');
    return this.deliveries.listByChannel(channelId, limit);
  }

  /** One recorded provider call by its id (another subgraph names it). */
  findDelivery(id: string): Promise<DeliveryDoc | null> {
    return this.deliveries.findById(id);
  }

  kinds(): string[] {
    return [...this.drivers.keys()].sort();
  }

  async checkNumber(req: proto.channelEngines.CheckNumberRequest__Output) {
    const channel = req.channel;
    if (!channel) throw validation('channel is required', [{ field: 'channel', message: 'is required' }]);
    const driver = this.drivers.get(channel.type);
    if (!driver?.checkNumber) {
      throw validation(
        `Channel kind ${channel.type} cannot check numbers`,
        [{ field: 'validateNumber', message: `not available on ${channel.type} channels` }],
        'ERR_VALIDATE_NUMBER_UNSUPPORTED',
      );
    }
    return driver.checkNumber(channel, req.number);
  }

  /**
   * typing / paused shown to a contact through the driver of the channel's kind; a kind without
   * the notion (no sendPresence) answers applied false and calls nobody. A provider failure is
   * ERR_PROVIDER_FAILED: the answer here IS the provider's answer.
   */
  async sendPresence(req: proto.channelEngines.SendPresenceRequest__Output): Promise<proto.channelEngines.SendPresenceResponse> {
    const channel = req.channel;
    new Issues()
      .check(!!channel, 'channel', 'is required')
      .check(!!req.to, 'to', 'is required')
      .check(req.state === 'typing' || req.state === 'paused', 'state', 'must be typing or paused')
      .throwIfAny('Invalid presence');
    const driver = this.drivers.get(channel!.type);
    if (!driver?.sendPresence) return { applied: false, driver: driver?.kind ?? '' };
    try {
      const applied = await driver.sendPresence({
        channel: channel!,
        to: req.to,
        state: req.state as 'typing' | 'paused',
        replyTo: req.replyTo,
      });
      return { applied, driver: driver.kind };
    } catch (err) {
      this.log.warn({ channelId: channel!.id, driver: driver.kind, error: (err as Error).message }, 'presence failed');
      throw err;
    }
  }

  /**
   * A provider webhook, already authenticated by the gateway, as neutral events. "meta" carries
   * many accounts (each event names its channel by account id); "engine" is one channel's engine
   * server, parsed by that kind's driver, and its events are stamped with the channel.
   */
  async parseInbound(req: proto.channelEngines.ParseInboundRequest__Output): Promise<{ events: proto.channelEngines.InboundEvent[] }> {
    if (req.source === 'meta') {
      const body = jsonOf(req.body);
      // Template changes update the catalogs before the answer: a send after it sees them.
      const changes = parseTemplateChanges(body);
      if (changes.length) await this.templates?.record(changes);
      return { events: parseMetaWebhook(body) };
    }
    if (req.source !== 'engine')
      throw validation(`Unknown inbound source ${req.source}`, [{ field: 'source', message: 'must be meta or engine' }]);
    const channel = req.channel;
    if (!channel) throw validation('channel is required', [{ field: 'channel', message: 'is required' }]);
    const driver = this.drivers.get(channel.type);
    if (!driver?.parseInbound) {
      throw validation(`channel kind ${channel.type} does not receive engine webhooks`, [
        { field: 'channel', message: `${channel.type} channels do not receive engine webhooks` },
      ]);
    }
    const events = driver.parseInbound(channel, jsonOf(req.body));
    return { events: events.map((e) => ({ ...e, channelId: channel.id, channelType: channel.type })) };
  }

  /** A waba channel's template catalog (Meta's message_templates, kept per channel). */
  async listTemplates(req: proto.channelEngines.ListTemplatesRequest__Output): Promise<proto.channelEngines.ListTemplatesResponse> {
    if (!req.channel) throw validation('channel is required', [{ field: 'channel', message: 'is required' }]);
    if (!this.templates) throw providerFailed('No template catalog');
    const { templates, fetchedAt } = await this.templates.list(req.channel, req.refresh);
    return { templates, fetchedAt: new Date(fetchedAt).toISOString() };
  }

  /** Web chat's queue belongs to its driver: the one kind whose messages wait for their reader. */
  async pullWebchat(req: proto.channelEngines.PullWebchatRequest__Output) {
    const driver = this.drivers.get('webchat');
    if (!(driver instanceof WebchatDriver)) throw providerFailed('No web chat driver');
    return driver.pull(req);
  }

  /**
   * The catalog's category of a waba template, read only where it picks the endpoint: a channel
   * with the Marketing Messages API set (docs/channels/providers-meta.md); '' elsewhere.
   */
  private async templateCategory(
    channel: proto.channelEngines.ChannelTarget__Output,
    content: proto.channelEngines.OutboundContent__Output | null,
  ) {
    if (channel.type !== 'waba' || !channel.marketingMessagesApi || content?.interactiveType !== 'waba/template' || !this.templates)
      return '';
    const { name, language } = templateNamed(content.interactiveJson);
    return name ? this.templates.categoryOf(channel, name, language) : '';
  }

  async deliver(req: proto.channelEngines.DeliverRequest__Output) {
    new Issues().check(!!req.channel, 'channel', 'is required').check(!!req.to, 'to', 'is required').throwIfAny('Invalid delivery');
    const channel = req.channel!;
    const driver = this.drivers.get(channel.type);
    if (!driver) throw providerFailed(`No driver for channel kind ${channel.type}`);
    const started = Date.now();
    const base = { _id: randomUUID(), tenantId: channel.tenantId, channelId: channel.id, driver: driver.kind, to: req.to };
    try {
      const content = req.content!;
      const { providerMessageId, status = 'sent' } = content.change
        ? await sendChange(driver, { channel, to: req.to, content, reference: req.reference })
        : await driver.send({
            channel,
            to: req.to,
            content,
            reference: req.reference,
            templateCategory: await this.templateCategory(channel, content),
          });
      this.deliveries.record({ ...base, providerMessageId, ok: true, error: '', durationMs: Date.now() - started, createdAt: new Date() });
      observeProviderCall(driver.kind, 'sent', started);
      return { providerMessageId, driver: driver.kind, status };
    } catch (err) {
      const error = (err as Error).message;
      this.log.warn({ channelId: channel.id, driver: driver.kind, reference: req.reference, error }, 'delivery failed');
      this.deliveries.record({ ...base, providerMessageId: '', ok: false, error, durationMs: Date.now() - started, createdAt: new Date() });
      observeProviderCall(driver.kind, isTransient(err) ? 'transient' : 'refused', started);
      throw err;
    }
  }
}

/** A change rather than a message (content.change): the driver's sendChange, refused where the kind has none. */
function sendChange(driver: Driver, { channel, to, content, reference }: Outbound) {
  const change = content.change as MessageChange;
  if (!driver.sendChange || !takesChange(driver.kind, change) || !content.targetId)
    throw validation(`${driver.kind} channels cannot ${change === 'react' ? 'react to' : change} a message`, [
      { field: 'content.change', message: `not available on ${driver.kind} channels` },
    ]);
  return driver.sendChange({
    channel,
    to,
    change,
    targetId: content.targetId,
    targetFromMe: content.targetFromMe,
    emoji: content.emoji,
    text: content.text,
    reference,
  });
}

/** A waba template's `{ name, language: { code } }`, from the interactive body the route validated. */
function templateNamed(json: string): { name: string; language: string } {
  try {
    const t = JSON.parse(json || '{}') as { name?: unknown; language?: { code?: unknown } };
    return { name: typeof t.name === 'string' ? t.name : '', language: typeof t.language?.code === 'string' ? t.language.code : '' };
  } catch {
    return { name: '', language: '' };
  }
}

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw validation('The webhook body is not valid JSON', [{ field: 'body', message: 'must be JSON' }]);
  }
}
