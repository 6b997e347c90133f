import type { Connection } from 'mongoose';
import type { Driver, DriverSettings } from './driver';
import { MarketplaceDriver } from './marketplace.driver';
import { WebchatDriver } from './webchat.driver';
import { WebmailDriver } from './webmail.driver';
import { WebchatRepository } from '../db/webchat.repository';
import { EngineADriver } from './engine-a.driver';
import { EngineBDriver } from './engine-b.driver';
import { EngineCDriver } from './engine-c.driver';
import { EngineDDriver } from './engine-d.driver';
import { EngineEDriver } from './engine-e.driver';
import { EngineFDriver } from './engine-f.driver';
import { EngineGDriver } from './engine-g.driver';
import { EngineHDriver } from './engine-h.driver';
import { WhatsappDriver } from './whatsapp.driver';
import { SocialDriver } from './social.driver';
import { WabaDriver } from './waba.driver';

/** Every channel kind's driver. One line per driver: add yours here. */
export function createDrivers(settings: DriverSettings, db: Connection): Driver[] {
  return [
    new EngineADriver(settings),
    new EngineBDriver(settings),
    new EngineCDriver(settings),
    new EngineDDriver(settings),
    new EngineEDriver(settings),
    new EngineFDriver(settings),
    new EngineGDriver(settings),
    new EngineHDriver(settings),
    new WhatsappDriver(settings),
    new WabaDriver(settings),
    new SocialDriver('social_a', settings),
    new SocialDriver('social_b', settings),
    new WebchatDriver(new WebchatRepository(db)),
    new MarketplaceDriver(settings),
    new WebmailDriver(settings),
  ];
}
