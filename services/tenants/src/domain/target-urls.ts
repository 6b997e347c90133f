import { type AllowList, type Issues, parseAllowList, targetUrlProblem } from '@convo/kit';
import { isHttpUrl } from '@convo/kit';

/**
 * Webhook and status-callback URLs are checked when set (CONVENTIONS "Providers (outbound)"): the
 * SSRF rules of the delivery, with the operator's allow-list (WEBHOOK_ALLOWED_PRIVATE), so that a
 * tenant learns of a refused target at once instead of from dead deliveries.
 */
export class TargetUrls {
  constructor(private readonly allow: AllowList = parseAllowList('')) {}

  /** Adds an issue per refused URL; empty values (clearing the setting) and non-URLs are left to the shape rules. */
  async check(issues: Issues, fields: Record<string, string | undefined>): Promise<void> {
    for (const [field, url] of Object.entries(fields)) {
      if (!url || !isHttpUrl(url)) continue;
      const problem = await targetUrlProblem(url, this.allow);
      if (problem) issues.add(field, `is not an allowed target: ${problem}`);
    }
  }
}
