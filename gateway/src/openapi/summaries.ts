/**
 * The summary of each operation whose route does not set one (Redocly's `operation-summary`), by
 * operationId. The document test fails on an operation with neither.
 */
export const SUMMARIES: Record<string, string> = {
  // tenant API
  tenantApiListTenants: 'A page of the tenants',
  tenantApiStoreTenant: 'Create a tenant and its administrator',
  tenantApiShowTenant: 'One tenant by id',
  tenantApiUpdateTenant: 'Update the tenant with this identity',
  tenantApiCreateSession: 'Create a channel (session) and its API integration',
  tenantCreateApi: 'Create an API integration with your own token',
  tenantDeleteApi: 'Delete an API integration',
  putWhatsapp: "Edit a channel, its webhook and its hybrid link",
  // webhooks
  webhooksPayments: "A payment gateway's event",
  getWebhooksMeta: "Meta's subscription check (hub.challenge)",
  webhooksMeta: "Meta's events (WhatsApp Cloud API, Instagram, Messenger), signed with X-Hub-Signature-256",
  webhooksEngine: "An engine's events for one channel, with the channel's engine token",
  // tickets
  createTicket: 'Open a ticket and send its first message',
  listTickets: 'A page of tickets, most recently active first',
  showticket: "A contact number's current ticket",
  showallticket: "Every ticket of a contact number",
  showTicketById: 'One ticket by id, with its last message',
  updateticketinfo: "Change a ticket's status, user, queue, chat flow, kanban column, reason or bot flags",
  updatequeue: "Move a ticket to a queue",
  addTag: 'Add tags to a ticket',
  removeTag: 'Take a tag off a ticket',
  createNotes: 'Add an internal note to a ticket',
  ticketPauseStart: 'Pause a ticket',
  ticketPauseEnd: "End a ticket's pause",
  sendEvaluation: 'Send the satisfaction survey of a ticket',
  // messages
  sendMessageByTicket: 'Send a message (text or file) to the contact of a ticket',
  showAllMessages: "The newest messages of a ticket, in conversation order",
  searchMessages: "A page of a ticket's messages containing a text",
  getMessageByMessageId: 'One message by id',
  // social configuration
  socialAIceBreakers: "Get, set or delete the Instagram channel's ice breakers",
  socialAPersistentMenu: "Get, set or delete the Instagram channel's persistent menu",
  socialBGreeting: "Get, set or delete the Messenger page's greeting",
  socialBPersonas: "List, create or delete the Messenger page's personas",
  // contacts, catalogs, notes, pauses
  showcontact: "A contact of the integration's channel by number",
  createContact: "Create a contact on the integration's channel",
  updateContact: "Update a contact of the integration's channel, found by number",
  listContacts: "A page of the tenant's contacts",
  listTags: "A page of the tenant's tags",
  listQueues: "A page of the tenant's queues",
  listUsers: "A page of the tenant's users",
  listNotes: "A page of a ticket's notes",
  updateNote: "Change a note's text",
  ticketPauseLogs: "A page of a ticket's pause log",
  // web chat (visitors)
  webchatVisitors: 'Start a web chat visitor session',
  getWebchatMessages: "Poll the visitor's conversation",
  webchatMessages: 'Send a message as the visitor',
};

/** Operations that take no bearer token: each proves its caller otherwise (a signature, a channel's token, nothing for a new visitor). */
export const PUBLIC_OPERATIONS = new Set(['webhooksPayments', 'getWebhooksMeta', 'webhooksMeta', 'webhooksEngine', 'webchatVisitors']);
