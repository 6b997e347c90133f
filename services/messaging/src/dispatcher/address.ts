import { contactAddress, isBsuid, isLid, type Logger, type proto } from '@convo/kit';
import type { MessageDoc } from '../db/models';

/**
 * Where a message goes, decided at delivery: as accepted (the ticket's contact's best address
 * then), unless that was a BSUID or a LID (a contact known by no phone), when the contact's
 * identities are read again and its phone, linked meanwhile, wins. Should tickets not answer, the
 * address accepted still reaches the contact.
 */
export async function addressAtDelivery(
  message: MessageDoc,
  contactOf: (tenantId: number, ticketId: number) => Promise<proto.tickets.Contact__Output | null | undefined>,
  log: Logger,
): Promise<string> {
  const to = message.to ?? '';
  if (!isBsuid(to) && !isLid(to)) return to;
  const contact = await contactOf(message.tenantId, message.ticketId).catch((err: unknown) => {
    log.warn({ err, messageId: message._id }, "the contact's identities could not be read: sent to the address accepted");
    return null;
  });
  return (contact && contactAddress(contact)) || to;
}
