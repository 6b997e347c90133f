import { isHttpUrl, type Issues } from '@convo/kit';

/** Empty (clears the setting) or an http(s) URL. */
export const isOptionalUrl = (value: string | undefined): boolean => !value || isHttpUrl(value);

/** webmail channels reach their SMTP relay: engineUrl is smtp:// or smtps:// (credentials inside). */
export const isSmtpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname.length > 0;
  } catch {
    return false;
  }
};

/** A plain mailbox address (what SMTP accepts in MAIL FROM), at most 254 characters. */
export const isEmailAddress = (value: string): boolean =>
  value.length <= 254 && /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/.test(value);

const MAX_INT32 = 2_147_483_647;

/** A positive integer id written as decimal text, as link fields arrive; undefined when invalid. */
export function parseId(raw: string): number | undefined {
  if (!/^\d{1,10}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= MAX_INT32 ? n : undefined;
}

/** Checks each value of a list against an enumeration, naming every bad value. */
export function checkEnumList(issues: Issues, field: string, values: string[], allowed: readonly string[]): void {
  values.forEach((v, i) => {
    if (!allowed.includes(v)) issues.add(`${field}[${i}]`, `unknown value "${v}"; allowed: ${allowed.join(', ')}`);
  });
}
