import { channelOf, settingsWith } from './driver-fixtures';
import type { Driver, DriverSettings, Outbound } from '../../src/drivers/driver';
import { EngineADriver } from '../../src/drivers/engine-a.driver';
import { EngineBDriver } from '../../src/drivers/engine-b.driver';
import { EngineCDriver } from '../../src/drivers/engine-c.driver';
import { EngineDDriver } from '../../src/drivers/engine-d.driver';
import { EngineEDriver } from '../../src/drivers/engine-e.driver';
import { EngineFDriver } from '../../src/drivers/engine-f.driver';
import { EngineGDriver } from '../../src/drivers/engine-g.driver';
import { EngineHDriver } from '../../src/drivers/engine-h.driver';
import { SocialDriver } from '../../src/drivers/social.driver';
import { WabaDriver } from '../../src/drivers/waba.driver';
import { WhatsappDriver } from '../../src/drivers/whatsapp.driver';

/**
 * Every messaging driver against one recording fake provider, for the tests that compare them
 * request by request. ANY_ANSWER is a body in which each driver finds its message id.
 */

export const PROVIDER_ID = 'PROVIDER-ID-1';
export const ANY_ANSWER = {
  key: { id: PROVIDER_ID, fromMe: true },
  messageid: PROVIDER_ID,
  messageId: PROVIDER_ID,
  message_id: PROVIDER_ID,
  data: { Id: PROVIDER_ID },
  response: [{ id: PROVIDER_ID }],
  success: true,
  message: { id: { _serialized: PROVIDER_ID } },
  messages: [{ id: PROVIDER_ID }],
};

export interface DriverCase {
  kind: string;
  driver: () => Driver;
  /** The engine URL of the channel: the server, with the session or instance where the engine needs one. */
  path?: string;
  channel?: Partial<Outbound['channel']>;
}

/** The cases, each driver's URLs (engine and Graph alike) on the fake provider `url()` names. */
export function driverCases(url: () => string, over: Partial<DriverSettings> = {}): Record<string, DriverCase> {
  const settings = () => settingsWith(500, { metaGraphUrl: url(), ...over });
  return {
    engine_a: { kind: 'engine_a', driver: () => new EngineADriver(settings()) },
    engine_b: { kind: 'engine_b', driver: () => new EngineBDriver(settings()), path: '/acme' },
    engine_c: { kind: 'engine_c', driver: () => new EngineCDriver(settings()) },
    engine_d: { kind: 'engine_d', driver: () => new EngineDDriver(settings()) },
    engine_e: { kind: 'engine_e', driver: () => new EngineEDriver(settings()), path: '/sess' },
    engine_f: { kind: 'engine_f', driver: () => new EngineFDriver(settings()) },
    engine_g: { kind: 'engine_g', driver: () => new EngineGDriver(settings()), path: '/default' },
    engine_h: { kind: 'engine_h', driver: () => new EngineHDriver(settings()), path: '/acme' },
    whatsapp: { kind: 'whatsapp', driver: () => new WhatsappDriver(settings()), path: '/sess' },
    waba: { kind: 'waba', driver: () => new WabaDriver(settings()), channel: { tokenApi: '1065', bmToken: 'bm-token' } },
    social_b: {
      kind: 'social_b',
      driver: () => new SocialDriver('social_b', settings()),
      channel: { pageId: 'PAGE1', pageToken: 'page-token' },
    },
  };
}

export const caseChannel = (url: string, c: DriverCase) => channelOf(c.kind, { engineUrl: `${url}${c.path ?? ''}`, ...c.channel });
