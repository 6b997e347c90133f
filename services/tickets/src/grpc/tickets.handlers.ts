import type { AsyncHandlers, ServiceRegistry } from '@convo/kit';
import type { CatalogService } from '../domain/catalog.service';
import type { ContactsService } from '../domain/contacts.service';
import type { EvaluationService } from '../domain/evaluation.service';
import type { NotesService } from '../domain/notes.service';
import type { PausesService } from '../domain/pauses.service';
import type { TicketCopies } from '../domain/ticket-copies';
import type { TicketOpening } from '../domain/ticket-opening';
import type { TicketsService } from '../domain/tickets.service';

export interface TicketsDomain {
  tickets: TicketsService;
  opening: TicketOpening;
  /** The copies GetTicket hands out to messaging (TICKET_SNAPSHOT_MS). */
  copies: TicketCopies;
  notes: NotesService;
  pauses: PausesService;
  evaluations: EvaluationService;
  contacts: ContactsService;
  catalog: CatalogService;
}

export function ticketsHandlers({
  tickets,
  opening,
  copies,
  notes,
  pauses,
  evaluations,
  contacts,
  catalog,
}: TicketsDomain): AsyncHandlers<ServiceRegistry['tickets']['handlers']> {
  return {
    OpenForContact: (req) => opening.openForContact(req),
    CreateTicket: (req) => opening.createTicket(req),
    DiscardTicket: (req) => opening.discardTicket(req),
    // Also on GetTicketStream, messaging's (the kit serves it with this handler: grpc/call-stream.ts).
    GetTicket: async (req) => copies.handOut(await tickets.getTicket(req.tenantId, req.ticketId)),
    UpdateTicket: (req) => tickets.updateTicket(req),
    ListTickets: (req) => tickets.listTickets(req),
    FindContactTickets: (req) => tickets.findContactTickets(req),
    SetQueue: (req) => tickets.setQueue(req.tenantId, req.ticketId, req.queueId),
    AddTags: (req) => tickets.addTags(req.tenantId, req.ticketId, req.tagIds),
    RemoveTag: (req) => tickets.removeTag(req.tenantId, req.ticketId, req.tagId),
    CreateNote: (req) => notes.createNote(req),
    StartPause: (req) => pauses.startPause(req.tenantId, req.ticketId, req.pauseReason),
    EndPause: (req) => pauses.endPause(req.tenantId, req.ticketId),
    BeginEvaluation: (req) => evaluations.begin(req),
    CompleteEvaluation: (req) => evaluations.complete(req),
    AbortEvaluation: (req) => evaluations.abort(req),
    RecordEvaluationAnswer: (req) => evaluations.recordAnswer(req),
    GetContact: (req) => contacts.getContact(req),
    CreateContact: (req) => contacts.createContact(req),
    UpdateContact: (req) => contacts.updateContact(req),
    ListContacts: (req) => contacts.listContacts(req),
    ListTags: (req) => catalog.page('tag', req),
    ListQueues: (req) => catalog.page('queue', req),
    ListNotes: (req) => notes.listNotes(req),
    UpdateNote: (req) => notes.updateNote(req),
    ListPauses: (req) => pauses.listPauses(req),
    ListKanbans: (req) => catalog.page('kanban', req),
    ListReasons: (req) => catalog.page('reason', req),
    SaveCatalogItem: (req) => catalog.save(req),
    DeleteCatalogItem: (req) => catalog.delete(req),
    SetTags: (req) => tickets.setTags(req.tenantId, req.ticketId, req.tagIds),
    GetContactById: (req) => contacts.getContactById(req),
    SetContactKanban: (req) => contacts.setKanban(req),
    SetContactWallet: (req) => contacts.setWallet(req),
  };
}
