import type { Queue } from 'bullmq';
import { z } from 'zod';
import { WebhookJobNames } from '@corpus-chat/contracts';
import { envInt } from '../config/validate-env';
import { modelUrlAllowlistEnv } from '../model/model-url-allowlist';

/** The webhook settings of the API (registration, resend) and the worker (sending). */
export const webhookEnvSchema = z.object({
  WEBHOOK_URL_ALLOWLIST: modelUrlAllowlistEnv(
    'Hosts webhook endpoints may point at, in the form of `MODEL_URL_ALLOWLIST` (empty: any public ' +
      'host). Besides, a webhook URL must be https and resolve to public addresses, unless an entry ' +
      'names it. Give the API and the workers the same value.',
  ),
  WEBHOOK_ATTEMPTS: envInt(10, 1, 30).describe(
    'Attempts of one webhook delivery before it is marked failed (the first included). With ' +
      '`WEBHOOK_RETRY_DELAY_MS` 10 s, the 10 attempts span about 85 minutes (docs/operations.md). Give ' +
      'the API and the workers the same value.',
  ),
  WEBHOOK_RETRY_DELAY_MS: envInt(10_000, 1, 3_600_000).describe(
    'Milliseconds before the first retry of a failed webhook delivery; each next wait doubles ' +
      '(BullMQ exponential back-off).',
  ),
});
export type WebhookEnv = z.output<typeof webhookEnvSchema>;

/** Only `add` is used: tests may pass any queue of `WEBHOOKS_QUEUE`. */
export type WebhookQueue = Pick<Queue, 'add'>;

/**
 * Queues the deliveries of ended turn `turnId` (`turn-ended`; jobId = turn id, so a repeat while
 * it waits is a no-op, and a repeat later stores nothing twice). A few quick retries cover a
 * database that is briefly down.
 */
export function queueTurnWebhooks(queue: WebhookQueue, turnId: string): Promise<unknown> {
  return queue.add(
    WebhookJobNames.turnEnded,
    { turnId },
    {
      jobId: turnId,
      attempts: 5,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: 1000,
    },
  );
}

/**
 * Queues one delivery (jobId = delivery id). Its attempts and back-off make the retry schedule;
 * the job is removed when it ends (its row keeps the outcome), so a resend can queue it again.
 */
export function queueWebhookDelivery(
  queue: WebhookQueue,
  deliveryId: string,
  env: Pick<WebhookEnv, 'WEBHOOK_ATTEMPTS' | 'WEBHOOK_RETRY_DELAY_MS'>,
): Promise<unknown> {
  return queue.add(
    WebhookJobNames.deliver,
    { deliveryId },
    {
      jobId: deliveryId,
      attempts: env.WEBHOOK_ATTEMPTS,
      backoff: { type: 'exponential', delay: env.WEBHOOK_RETRY_DELAY_MS },
      removeOnComplete: true,
      removeOnFail: true,
    },
  );
}
