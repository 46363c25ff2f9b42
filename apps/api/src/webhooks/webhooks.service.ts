import { InjectQueue } from '@nestjs/bullmq';
import {
  type BeforeApplicationShutdown,
  ConflictException,
  ForbiddenException,
  Injectable,
  Logger,
  NotFoundException,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import {
  type CreatedWebhookEndpoint,
  type CreateWebhookDto,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  WEBHOOKS_PER_OPERATOR,
  WEBHOOKS_QUEUE,
} from '@corpus-chat/contracts';
import {
  type ListedDelivery,
  type WebhookEndpointEntity,
  WebhooksRepository,
} from '@corpus-chat/persistence';
import {
  queueWebhookDelivery,
  settleBullConnections,
  WebhookTargetRefusedError,
  WebhookTargets,
  withTimeout,
} from '@corpus-chat/server-core';
import type { AuthenticatedOperator } from '../auth/current-operator';
import { ApiEnv } from '../config/api-env';

/** Deliveries `GET /api/webhooks/deliveries` lists. */
const LISTED_DELIVERIES = 50;

const toView = (e: WebhookEndpointEntity): WebhookEndpointView => ({
  id: e.id,
  url: e.url,
  events: e.events,
  allOperators: e.allOperators,
  createdAt: e.createdAt.toISOString(),
});

const toDeliveryView = (d: ListedDelivery): WebhookDeliveryView => ({
  id: d.id,
  endpointId: d.endpointId,
  url: d.url,
  eventType: d.eventType,
  turnId: d.turnId,
  threadId: d.payload.data.threadId,
  threadTitle: d.payload.data.threadTitle,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  createdAt: d.createdAt.toISOString(),
  updatedAt: d.updatedAt.toISOString(),
});

/**
 * Operators' webhook endpoints: registered (the URL checked against `WEBHOOK_URL_ALLOWLIST` and
 * resolved to public addresses; the signing secret answered once), listed, deleted, and their
 * recent deliveries, of which a failed one can be sent again. Sending is the worker's.
 */
@Injectable()
export class WebhooksService implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WebhooksService.name);
  private readonly targets: WebhookTargets;
  private readonly webhooks: WebhooksRepository;

  constructor(
    db: DataSource,
    private readonly env: ApiEnv,
    @InjectQueue(WEBHOOKS_QUEUE) private readonly queue: Queue,
  ) {
    this.targets = new WebhookTargets(env.WEBHOOK_URL_ALLOWLIST);
    this.webhooks = new WebhooksRepository(db);
  }

  beforeApplicationShutdown(): Promise<void> {
    return settleBullConnections([this.queue], this.env.REDIS_REQUEST_TIMEOUT_MS);
  }

  /** 422 for a URL that may not be used, 403 for `allOperators` by a non-admin, 409 over the limit. */
  async create(operator: AuthenticatedOperator, dto: CreateWebhookDto): Promise<CreatedWebhookEndpoint> {
    if (dto.allOperators && operator.role !== 'admin')
      throw new ForbiddenException('Only an admin may register a webhook for all operators.');
    let url: URL;
    try {
      url = await this.targets.check(dto.url);
    } catch (e) {
      if (e instanceof WebhookTargetRefusedError) throw new UnprocessableEntityException(e.message);
      throw e;
    }
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const saved = await this.webhooks.insertWebhookEndpoint(
      {
        operatorId: operator.id,
        url: url.href,
        events: dto.events,
        allOperators: !!dto.allOperators,
        secret,
      },
      WEBHOOKS_PER_OPERATOR,
      operator,
    );
    if (!saved)
      throw new ConflictException(
        `You have ${WEBHOOKS_PER_OPERATOR} webhooks already: delete one you no longer use first.`,
      );
    this.logger.log({ msg: 'webhook registered', operatorId: operator.id, webhookId: saved.id });
    return { ...toView(saved), secret };
  }

  async list(operatorId: string): Promise<WebhookEndpointView[]> {
    return (await this.webhooks.listWebhookEndpoints(operatorId)).map(toView);
  }

  async remove(operator: AuthenticatedOperator, id: string): Promise<void> {
    if (!(await this.webhooks.deleteWebhookEndpoint(operator.id, id, operator)))
      throw new NotFoundException('You have no webhook with this id.');
    this.logger.log({ msg: 'webhook deleted', operatorId: operator.id, webhookId: id });
  }

  async deliveries(operatorId: string): Promise<WebhookDeliveryView[]> {
    return (await this.webhooks.listWebhookDeliveries(operatorId, LISTED_DELIVERIES)).map(toDeliveryView);
  }

  /** Sends a failed delivery again, with a fresh retry schedule; 404 unknown, 409 not failed, 503 Redis. */
  async resend(operatorId: string, id: string): Promise<void> {
    const reset = await this.webhooks.resetFailedDelivery(operatorId, id);
    if (reset === 'missing') throw new NotFoundException('You have no webhook delivery with this id.');
    if (reset === 'not-failed')
      throw new ConflictException(
        'Only a failed delivery can be sent again; this one is pending or delivered.',
      );
    try {
      await withTimeout(
        queueWebhookDelivery(this.queue, id, this.env),
        this.env.REDIS_REQUEST_TIMEOUT_MS,
        'queue the webhook delivery',
      );
    } catch (e) {
      // Left pending would never be sent: mark it failed again so it can be resent later.
      await this.webhooks.markDeliveryFailed(id);
      throw new ServiceUnavailableException(
        `Redis is unavailable, so the delivery was not sent again (${(e as Error).message}). Try again shortly.`,
      );
    }
    this.logger.log({ msg: 'webhook delivery resent', operatorId, deliveryId: id });
  }
}
