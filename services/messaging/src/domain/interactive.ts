import { Issues, validation, type proto } from '@convo/kit';
import { isWabaContact } from './send-checks';

/**
 * The channel type each interactive route segment sends through. A route's JSON is in its
 * engine's dialect, so an engine_a quick reply cannot go out on a waba channel or the reverse.
 */
export const ROUTE_CHANNEL_TYPE: Readonly<Record<string, string>> = {
  engine_a: 'engine_a',
  engine_b: 'engine_b',
  engine_c: 'engine_c',
  waba: 'waba',
  social_a: 'social_a',
  social_b: 'social_b',
};

/** waba routes address a contact (a number or a BSUID) on the integration's channel; every other route names a ticket. */
export const isNumberRoute = (route: string) => route === 'waba';

/** The request's own consistency, checked before anything is read or written. */
export function checkInteractive(req: proto.messaging.SendInteractiveRequest__Output): void {
  const issues = new Issues()
    .check(req.route in ROUTE_CHANNEL_TYPE, 'route', `must be one of ${Object.keys(ROUTE_CHANNEL_TYPE).join(', ')}`)
    .check(/^[A-Za-z]{1,40}$/.test(req.type), 'type', 'is required')
    .check(isJsonObject(req.json), 'json', 'must be a JSON object')
    .check(!!req.body.trim(), 'body', 'is required (the text kept in the ticket history)');
  if (isNumberRoute(req.route)) {
    issues
      .check(isWabaContact(req.number), 'number', 'must be an E.164 number or a BSUID')
      .check(req.channelId > 0, 'channelId', "is required (the integration's channel)");
  } else {
    issues.check(req.ticketId !== undefined && req.ticketId > 0, 'ticketId', 'is required');
  }
  issues.throwIfAny('Invalid interactive message');
}

/** ERR_CHANNEL_MISMATCH unless the channel is of the route's kind; `field` names what chose the channel. */
export function requireRouteChannel(route: string, channel: proto.tenants.Channel__Output, field: string): void {
  const needed = ROUTE_CHANNEL_TYPE[route];
  if (channel.type === needed) return;
  throw validation(
    `The ${route} route sends through ${needed} channels; channel ${channel.id} is ${channel.type}`,
    [{ field, message: `its channel is ${channel.type}, the ${route} route needs ${needed}` }],
    'ERR_CHANNEL_MISMATCH',
  );
}

function isJsonObject(json: string): boolean {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
