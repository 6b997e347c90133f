import { contactIdentity, DomainError, type grpc, Issues, isPhoneDigits, type proto, validation } from '@convo/kit';

// What a send request must hold, and how much time it has left, checked before anything is stored.

/** routeVia: "auto", "official", or absent (official). */
export function checkRouteVia(routeVia: string): void {
  if (routeVia && routeVia !== 'auto' && routeVia !== 'official') {
    throw validation('Invalid routeVia', [{ field: 'routeVia', message: 'must be auto or official' }]);
  }
}

export const routeAuto = (routeVia: string) => routeVia === 'auto';

/** Time a send needs after its last check to store the message and answer. */
const COMMIT_MARGIN_MS = 250;
/** How long a send without a deadline may take to commit, as far as its externalKey claim is concerned. */
export const DEFAULT_ACCEPT_MS = 60_000;

export const deadlineMs = (deadline?: grpc.Deadline): number | undefined =>
  deadline === undefined || deadline === Infinity ? undefined : deadline instanceof Date ? deadline.getTime() : Number(deadline);

export function requireTimeLeft(deadline?: grpc.Deadline): void {
  const at = deadlineMs(deadline);
  if (at === undefined) return;
  if (at - Date.now() < COMMIT_MARGIN_MS) {
    throw new DomainError(
      'unavailable',
      'ERR_UNAVAILABLE',
      'The send ran out of time before it was accepted; nothing was stored, retry it',
    );
  }
}

/**
 * A contact of the official channel as its number routes name it: a phone number or a BSUID (or a
 * parent BSUID); a LID belongs to the unofficial engines, longer digits to the social channels.
 */
export function isWabaContact(raw: string): boolean {
  const id = contactIdentity(raw);
  return !!id && (id.kind === 'number' ? isPhoneDigits(id.value) : id.kind !== 'lid');
}

/**
 * A send by number names the contact and the integration's channel. The contact is a number or
 * another identity, told apart by form (docs/api/contact-identities.md); which identity suits
 * which kind of channel is the contact's channel's to say when it is sent.
 */
export function checkNumberSend(req: proto.messaging.SendByTicketRequest__Output): void {
  new Issues()
    .check(
      contactIdentity(req.number) !== undefined,
      'number',
      'is required: an E.164 number (or a platform user id), a BSUID or a LID, or send ticketId',
    )
    .check(req.channelId > 0, 'channelId', "is required (the integration's channel)")
    .throwIfAny('Invalid send by number');
}

export function checkGroupSend(req: proto.messaging.SendByTicketRequest__Output): void {
  new Issues()
    .check(/^[0-9]{5,30}(-[0-9]{5,15})?$/.test(req.groupId), 'groupId', "is a WhatsApp group id: digits (older ids: '<digits>-<digits>')")
    .check(req.channelId > 0, 'channelId', "is required (the integration's channel)")
    .throwIfAny('Invalid send to a group');
}

/** A template send names the contact (a number or a BSUID) and the template; its components, if any, are a list. */
export function checkTemplateSend(req: proto.messaging.SendTemplateRequest__Output): object[] {
  new Issues()
    .check(isWabaContact(req.number), 'number', 'is required: an E.164 number or a BSUID')
    .check(!!req.name, 'template.name', 'is required')
    .check(!!req.language, 'template.language.code', 'is required')
    .throwIfAny('Invalid template send');
  let given: unknown = [];
  try {
    given = req.componentsJson ? JSON.parse(req.componentsJson) : [];
  } catch {
    // refused below
  }
  if (!Array.isArray(given)) throw validation('Invalid template send', [{ field: 'components', message: 'must be a list' }]);
  return given as object[];
}
