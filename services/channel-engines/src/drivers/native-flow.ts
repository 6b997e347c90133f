import { randomBytes } from 'node:crypto';
import { type Json, nestedText, optionalText, requiredList, requiredNestedText, requiredObject, requiredText } from '../json';
import { type PixType, requiredPixType, unknownInteractive } from './wa-engine';

/**
 * WhatsApp's interactive "native flow" messages, as Baileys builds them (proto
 * `interactiveMessage { body, footer, nativeFlowMessage { buttons: [{ name, buttonParamsJson }] } }`).
 * Each seed type of the engine_a route is one button name; `buttonParamsJson` is a JSON *string*
 * whose shape comes from Evolution API and bot code that WhatsApp renders (docs/channels/engines-abc.md).
 */

export interface NativeFlowButton {
  name: string;
  buttonParamsJson: string;
}

export interface InteractiveMessage {
  body?: { text: string };
  footer?: { text: string };
  nativeFlowMessage: { buttons: NativeFlowButton[] };
}

const TYPES = ['quickReply', 'singleSelect', 'pixButton', 'ctaCopy', 'ctaUrl', 'ctaCall'];

const button = (name: string, params: unknown): NativeFlowButton => ({ name, buttonParamsJson: JSON.stringify(params) });

/** One engine_a interactive type (the seed's field names) as the interactiveMessage Baileys sends. */
export function nativeFlowMessage(kind: string, type: string, json: Json, reference: string): InteractiveMessage {
  if (type === 'pixButton') {
    const bodyText = optionalText(json, 'bodyText');
    return {
      ...(bodyText ? { body: { text: bodyText } } : {}),
      nativeFlowMessage: {
        buttons: [
          button(
            'payment_info',
            pixPaymentInfo({
              keyType: requiredPixType(json),
              key: requiredText(json, 'pixKey'),
              merchantName: requiredText(json, 'pixName'),
              reference,
            }),
          ),
        ],
      },
    };
  }
  const buttons = buttonsOf(kind, type, json);
  const footer = nestedText(json, 'footer');
  return {
    body: { text: requiredNestedText(json, 'body') },
    ...(footer ? { footer: { text: footer } } : {}),
    nativeFlowMessage: { buttons },
  };
}

function buttonsOf(kind: string, type: string, json: Json): NativeFlowButton[] {
  switch (type) {
    case 'quickReply':
      return requiredList(json, 'buttons').map((b, i) =>
        button('quick_reply', {
          display_text: requiredText(b, 'display_text', `buttons[${i}].display_text`),
          id: requiredText(b, 'id', `buttons[${i}].id`),
        }),
      );
    case 'singleSelect':
      return [button('single_select', singleSelect(json))];
    case 'ctaCopy':
      return [button('cta_copy', { display_text: requiredText(json, 'displayText'), copy_code: requiredText(json, 'copyCode') })];
    case 'ctaUrl': {
      const url = requiredText(json, 'url');
      return [button('cta_url', { display_text: requiredText(json, 'displayText'), url, merchant_url: url })];
    }
    case 'ctaCall':
      return [button('cta_call', { display_text: requiredText(json, 'displayText'), phone_number: requiredText(json, 'phoneNumber') })];
    default:
      throw unknownInteractive(kind, type, TYPES);
  }
}

/** `list.title` labels the button that opens the list; rows keep their ids, which come back when chosen. */
function singleSelect(json: Json): Json {
  const list = requiredObject(json, 'list');
  return {
    title: requiredText(list, 'title', 'list.title'),
    sections: requiredList(list, 'sections', 'list.sections').map((section, s) => ({
      title: optionalText(section, 'title') ?? '',
      rows: requiredList(section, 'rows', `list.sections[${s}].rows`).map((row, r) => ({
        id: requiredText(row, 'id', `list.sections[${s}].rows[${r}].id`),
        title: requiredText(row, 'title', `list.sections[${s}].rows[${r}].title`),
        description: optionalText(row, 'description') ?? '',
      })),
    })),
  };
}

/**
 * The `payment_info` button of a static PIX key: an order of zero (the contact types the amount
 * in their bank app) whose only payment setting is the key. WhatsApp wants a reference id of at
 * most 35 letters or digits; our message id (without its dashes) identifies the order, and a
 * random one stands in when the send has no reference.
 */
export function pixPaymentInfo(pix: { keyType: PixType; key: string; merchantName: string; reference: string }): Json {
  const zero = { value: 0, offset: 100 };
  const referenceId = pix.reference.replace(/[^A-Za-z0-9]/g, '').slice(0, 35) || randomBytes(8).toString('hex').toUpperCase();
  return {
    currency: 'BRL',
    total_amount: zero,
    reference_id: referenceId,
    type: 'physical-goods',
    order: { status: 'pending', subtotal: zero, order_type: 'ORDER', items: [{ name: '', amount: zero, quantity: 0, sale_amount: zero }] },
    payment_settings: [
      { type: 'pix_static_code', pix_static_code: { merchant_name: pix.merchantName, key: pix.key, key_type: pix.keyType } },
    ],
    share_payment_status: false,
  };
}
