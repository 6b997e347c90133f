import type { Connection } from 'mongoose';
import type { Driver, DriverSettings } from './driver';
import { EngineADriver } from './engine-a.driver';

/** Every channel kind's driver. One line per driver: add yours here. */
export function createDrivers(settings: DriverSettings, db: Connection): Driver[] {
  void db; // for drivers that keep state (web chat queues)
  return [
    new EngineADriver(settings),
  ];
}
