import { ClaimStore } from '@convo/kit/claims';
import { nextSequence } from '@convo/kit/mongo';
import type { Connection } from 'mongoose';
import { CatalogRepository, type CatalogKind } from './catalog.repository';
import { ContactsRepository } from './contacts.repository';
import { ListingPages } from './listing-pages';
import { ListingRepository } from './listing.repository';
import { registerModels, type EvaluationClaimDoc, type Models, type NoteKeyDoc, type OpenClaimDoc, type TicketKeyDoc } from './models';
import { NotesRepository } from './notes.repository';
import { TicketsRepository } from './tickets.repository';

/** The claims of the tickets service, each a collection whose unique `_id` is the claim. */
export interface TicketClaims {
  /** createTicket's externalKey, `<tenantId>:<key>`. */
  ticketKeys: ClaimStore<TicketKeyDoc>;
  /** OpenForContact's claim on opening a contact's next ticket (see OpenClaimDoc). */
  opens: ClaimStore<OpenClaimDoc>;
  /** A note's idFront, `<tenantId>:<idFront>`. */
  noteKeys: ClaimStore<NoteKeyDoc>;
  /** sendEvaluation's once-claim and externalKey (see EvaluationClaimDoc). */
  evaluations: ClaimStore<EvaluationClaimDoc>;
}

/** The tickets service's database: one repository per aggregate, and its claims. */
export class TicketsDatabase {
  readonly models: Models;
  readonly listing: ListingRepository;
  /** Pages and counts of the listing. */
  readonly pages: ListingPages;
  readonly tickets: TicketsRepository;
  readonly contacts: ContactsRepository;
  readonly catalog: CatalogRepository;
  readonly notes: NotesRepository;
  readonly claims: TicketClaims;

  constructor(private readonly conn: Connection) {
    this.models = registerModels(conn);
    this.listing = new ListingRepository(this.models);
    this.pages = new ListingPages(this.models);
    this.tickets = new TicketsRepository(this.models, this.listing);
    this.contacts = new ContactsRepository(conn, this.models);
    this.catalog = new CatalogRepository(conn, this.models, this.tickets);
    this.notes = new NotesRepository(this.models);
    this.claims = {
      ticketKeys: new ClaimStore(this.models.TicketKey),
      opens: new ClaimStore(this.models.OpenClaim),
      noteKeys: new ClaimStore(this.models.NoteKey),
      evaluations: new ClaimStore(this.models.EvaluationClaim),
    };
  }

  /**
   * Indexes first, then the listing rebuilt if its layout changed or tickets and rows disagree by
   * many (ListingRepository); answers the small gap between them left to the writes to heal.
   */
  async init(): Promise<{ listingGap: number }> {
    await Promise.all(Object.values(this.models).map((m) => m.createIndexes()));
    return { listingGap: await this.listing.backfillListing() };
  }

  nextId(kind: 'ticket' | 'contact' | 'note' | 'pause' | CatalogKind): Promise<number> {
    return nextSequence(this.conn, kind);
  }
}
