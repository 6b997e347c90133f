import { providerFailed, validation, type proto } from '@convo/kit';
import { createTransport, type Attachment, type Mail, type SMTPPoolOptions } from 'nodemailer';
import { attachmentsOf, bridgeEvents, fieldsOf, timestampOf, withAttachments, type BridgeEvent } from './bridge';
import type { Delivered, Driver, DriverSettings, Outbound } from './driver';

/** Largest attachment fetched for an e-mail: common relays refuse messages much above it. */
export const ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;
/** An e-mail sent without a subject takes the first line of its text, cut to this many characters. */
const SUBJECT_MAX = 78;
/** ...or this, when it has no text either. */
export const DEFAULT_SUBJECT = 'New message';

interface SmtpError extends Error {
  code?: string;
  response?: string;
  responseCode?: number;
}

/**
 * webmail: e-mail through an SMTP relay, with nodemailer. The relay is the channel's `engineUrl`
 * when it is an smtp:// or smtps:// URL (credentials inside, `smtps` = implicit TLS, nodemailer
 * options as query parameters, e.g. `?requireTLS=true`), else SMTP_URL. From is the channel's
 * `emailAddress`, To the ticket contact's address. The provider id is the Message-ID.
 *
 * Inbound mail comes from an inbound-mail bridge posting `{ type: "email", ... }` events to
 * /webhooks/engine/{channelId} (docs/channels/webchat-email-marketplace.md).
 */
export class WebmailDriver implements Driver {
  readonly kind = 'webmail';
  /** One pooled transport per relay URL, so consecutive sends reuse an open SMTP session. */
  private readonly transports = new Map<string, Mail>();

  constructor(private readonly settings: DriverSettings) {}

  async send({ channel, to, content, reference }: Outbound): Promise<Delivered> {
    const relay = this.relayOf(channel);
    const from = channel.emailAddress;
    if (!from) throw providerFailed(`webmail channel ${channel.id} has no emailAddress (the From address)`);
    // One budget for the whole send, attachment included: the caller waits PROVIDER_TIMEOUT_MS
    // plus a small margin, not one timeout per step.
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    const attachments = content.mediaUrl ? [await this.fetchAttachment(content, signal)] : [];
    try {
      const info = await this.transport(relay).sendMail({
        // Address objects, never parsed: a comma in a contact's address cannot add recipients.
        from: { name: '', address: from },
        to: { name: '', address: to },
        subject: subjectOf(content),
        text: content.text,
        attachments,
        // Our message id in the Message-ID, so a reply's In-Reply-To names the message it answers.
        messageId: reference ? `<${reference}@${from.split('@').pop()}>` : undefined,
        signal,
      });
      return { providerMessageId: info.messageId };
    } catch (err) {
      const e = err as SmtpError;
      throw providerFailed(`webmail: ${this.reasonOf(e)}`, [
        { provider: 'webmail', code: e.code ?? '', responseCode: e.responseCode ?? 0, response: e.response ?? '' },
      ]);
    }
  }

  parseInbound(_channel: Outbound['channel'], body: unknown): proto.channelEngines.InboundEvent[] {
    return bridgeEvents(body, 'inbound-mail').flatMap(parseEmail);
  }

  /** Closes every pooled SMTP connection (service shutdown). */
  close(): void {
    for (const transport of this.transports.values()) transport.close();
    this.transports.clear();
  }

  private relayOf(channel: Outbound['channel']): string {
    if (/^smtps?:\/\//i.test(channel.engineUrl)) return channel.engineUrl;
    if (this.settings.smtpUrl) return this.settings.smtpUrl;
    throw providerFailed(`webmail channel ${channel.id} has no SMTP relay (an smtp:// or smtps:// engineUrl, or SMTP_URL)`);
  }

  private transport(url: string): Mail {
    let transport = this.transports.get(url);
    if (!transport) {
      const t = this.settings.timeoutMs;
      const options: SMTPPoolOptions & { pool: true } = {
        url,
        pool: true,
        connectionTimeout: t,
        greetingTimeout: t,
        socketTimeout: t,
        dnsTimeout: t,
        // A connection that drops mid-message is not retried here: the relay may have taken the
        // message, and a resend would deliver it twice. The failure is reported instead.
        maxRequeues: 0,
      };
      transport = createTransport(options);
      this.transports.set(url, transport);
    }
    return transport;
  }

  /** The media link is our own signed /media link: fetched here, within the send's budget and a size cap. */
  private async fetchAttachment({ mediaUrl, mimeType, fileName }: Outbound['content'], signal: AbortSignal): Promise<Attachment> {
    let res: Response;
    let data: Buffer;
    try {
      res = await fetch(mediaUrl, { redirect: 'manual', signal });
      data = res.ok ? await readCapped(res, ATTACHMENT_MAX_BYTES) : Buffer.alloc(0);
    } catch (err) {
      throw providerFailed(
        `webmail could not fetch the attachment: ${isTimeout(err) ? `no answer within ${this.settings.timeoutMs} ms` : (err as Error).message}`,
      );
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw providerFailed(`webmail could not fetch the attachment: HTTP ${res.status}`);
    }
    return { filename: fileName || undefined, content: data, contentType: mimeType || res.headers.get('content-type') || undefined };
  }

  private reasonOf(e: SmtpError): string {
    if (isTimeout(e) || e.code === 'ETIMEDOUT') return `the SMTP server gave no answer within ${this.settings.timeoutMs} ms`;
    if (e.response) return `the SMTP server refused the message: ${e.response}`;
    if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'EDNS') return `the SMTP server is unreachable: ${e.message}`;
    return e.message;
  }
}

const isTimeout = (err: unknown) => {
  const name = (err as Error).name;
  return name === 'TimeoutError' || name === 'AbortError';
};

async function readCapped(res: Response, max: number): Promise<Buffer> {
  if (Number(res.headers.get('content-length')) > max) throw new Error(`it is larger than ${max} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.length;
    if (size > max) throw new Error(`it is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function subjectOf({ subject, text }: Outbound['content']): string {
  if (subject) return subject;
  const line = text.trim().split(/\r?\n/, 1)[0].trim();
  if (!line) return DEFAULT_SUBJECT;
  return line.length > SUBJECT_MAX ? `${line.slice(0, SUBJECT_MAX - 1)}…` : line;
}

/** `{ type: "email", from, fromName, subject, text, messageId, inReplyTo, attachments, timestamp }`. */
function parseEmail(event: BridgeEvent): proto.channelEngines.InboundEvent[] {
  if (event.type !== 'email') return [];
  const f = fieldsOf(event, 'inbound-mail', ['from', 'messageId'], ['fromName', 'subject', 'text', 'inReplyTo']);
  if (!/^[^\s@]+@[^\s@]+$/.test(f.from))
    throw validation('Invalid inbound e-mail', [{ field: 'from', message: 'must be an e-mail address' }]);
  const message = {
    kind: 'message',
    // E-mail contacts have an address, not a number.
    from: '',
    email: f.from.toLowerCase(),
    contactName: f.fromName,
    subject: f.subject,
    body: f.text,
    providerMessageId: f.messageId,
    replyTo: f.inReplyTo,
    timestampMs: timestampOf(event.timestamp),
    rawJson: JSON.stringify(event),
  };
  return withAttachments(message, attachmentsOf(event, 'inbound-mail'), () => 'email');
}
