import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { REDIRECT_STATUS } from '../model/model-redirects';
import type { WebhookTargets } from './webhook-target';

/** Longest one attempt may take, connection to last byte; a receiver should answer at once and work later. */
const SEND_TIMEOUT_MS = 15_000;

/** One delivery attempt as sent. */
export interface WebhookMessage {
  /** `webhook-id`: the same on every attempt, so a receiver can drop repeats. */
  id: string;
  url: string;
  /** `whsec_…`. */
  secret: string;
  body: string;
}

/** What an attempt got: a 2xx is `ok`; anything else says what went wrong. */
export type WebhookAttempt =
  { ok: true; statusCode: number } | { ok: false; statusCode: number | null; error: string };

/**
 * Sends one signed Standard Webhooks message, connecting only to an address that passes
 * `WebhookTargets.lookupFor`; redirects are not followed. Never throws: failures are failed attempts.
 */
export async function sendWebhook(
  targets: WebhookTargets,
  message: WebhookMessage,
  now = new Date(),
): Promise<WebhookAttempt> {
  let url: URL;
  try {
    url = await targets.check(message.url);
  } catch (e) {
    return { ok: false, statusCode: null, error: (e as Error).message };
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'corpus-chat-webhooks',
    'webhook-id': message.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(message.secret).sign(message.id, now, message.body),
  };
  return new Promise<WebhookAttempt>((resolve) => {
    const req = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers, lookup: targets.lookupFor(url), timeout: SEND_TIMEOUT_MS },
      (res) => {
        const statusCode = res.statusCode ?? 0;
        res.resume();
        res.on('error', () => undefined);
        if (statusCode >= 200 && statusCode < 300) resolve({ ok: true, statusCode });
        else if (REDIRECT_STATUS.has(statusCode))
          resolve({
            ok: false,
            statusCode,
            error: `The receiver answered a redirect to ${res.headers.location ?? '(no Location)'}: redirects are not followed. Register the address it redirects to.`,
          });
        else resolve({ ok: false, statusCode, error: `The receiver answered HTTP ${statusCode}.` });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${SEND_TIMEOUT_MS / 1000} s`)));
    req.on('error', (e) => resolve({ ok: false, statusCode: null, error: `Not delivered: ${e.message}` }));
    req.end(message.body);
  });
}
