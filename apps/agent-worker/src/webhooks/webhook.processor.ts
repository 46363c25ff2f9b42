import { InjectQueue, OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import {
  deliverWebhookJobDataSchema,
  turnEndedJobDataSchema,
  WebhookJobNames,
  WEBHOOKS_QUEUE,
} from '@corpus-chat/contracts';
import { WebhooksRepository } from '@corpus-chat/persistence';
import {
  queueWebhookDelivery,
  sendWebhook,
  type WebhookQueue,
  WebhookTargets,
} from '@corpus-chat/server-core';
import { WorkerEnv } from '../config/worker-env';
import { parseJobData } from '../job-data';
import { turnWebhookPayload } from './turn-webhook-payload';

/**
 * BullMQ glue of `webhooks`: `turn-ended` stores and queues one delivery per endpoint; `deliver`
 * sends one signed POST, storing each outcome and throwing on failure so BullMQ backs off and
 * retries; the last failure marks it `failed`. `WorkerModule.forRoot` adds `@Processor`.
 */
@Injectable()
export class WebhookProcessor extends WorkerHost {
  private readonly logger = new Logger(WebhookProcessor.name);
  private readonly targets = new WebhookTargets(this.env.WEBHOOK_URL_ALLOWLIST);
  private readonly webhooks = new WebhooksRepository(this.db);

  constructor(
    private readonly db: DataSource,
    private readonly env: WorkerEnv,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: WebhookQueue,
  ) {
    super();
  }

  async process(job: Job): Promise<string> {
    if (job.name === WebhookJobNames.turnEnded)
      return this.queueDeliveries(parseJobData(turnEndedJobDataSchema, job.data).turnId);
    if (job.name === WebhookJobNames.deliver)
      return this.deliver(parseJobData(deliverWebhookJobDataSchema, job.data).deliveryId, job);
    throw new Error(`unknown job ${job.name} on ${WEBHOOKS_QUEUE}`);
  }

  /** A delivery's failures are stored by `deliver`; this logs the rest (a `turn-ended` job that failed). */
  @OnWorkerEvent('failed')
  onFailed(job: Job | undefined, error: Error): void {
    if (job?.name === WebhookJobNames.deliver) return;
    this.logger.error(
      `webhook job ${job?.name} ${job?.id} failed (attempt ${job?.attemptsMade}): ${error.message}`,
    );
  }

  private async queueDeliveries(turnId: string): Promise<string> {
    const turn = await this.webhooks.findEndedTurn(turnId);
    if (!turn) {
      this.logger.log(`turn ${turnId}: not ended or gone; no webhooks`);
      return 'no turn';
    }
    const payload = turnWebhookPayload(turn, this.env.PUBLIC_ORIGIN);
    const ids = await this.webhooks.insertTurnDeliveries(turn.ownerId, payload);
    for (const id of ids) await queueWebhookDelivery(this.queue, id, this.env);
    if (ids.length)
      this.logger.log(`turn ${turnId}: ${ids.length} webhook deliveries queued (${payload.type})`);
    return `${ids.length} deliveries`;
  }

  private async deliver(deliveryId: string, job: Job): Promise<string> {
    const delivery = await this.webhooks.findDeliveryToSend(deliveryId);
    if (!delivery || delivery.status !== 'pending') {
      this.logger.log(`webhook delivery ${deliveryId}: ${delivery ? delivery.status : 'gone'}; not sent`);
      return delivery?.status ?? 'gone';
    }
    const result = await sendWebhook(this.targets, {
      id: delivery.id,
      url: delivery.url,
      secret: delivery.secret,
      body: JSON.stringify(delivery.payload),
    });
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    await this.webhooks.recordDeliveryAttempt(deliveryId, {
      status: result.ok ? 'delivered' : last ? 'failed' : 'pending',
      statusCode: result.statusCode,
      error: result.ok ? null : result.error,
    });
    if (result.ok) return 'delivered';
    this.logger.warn(
      `webhook delivery ${deliveryId}: attempt ${job.attemptsMade + 1} failed${last ? ' (last)' : ''}: ${result.error}`,
    );
    throw new Error(result.error);
  }
}
