import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { WebhookDeliveryStatus, WebhookEventType, WebhookPayload } from '@corpus-chat/contracts';

/**
 * One endpoint's delivery of one ended turn (migration 1764503600000-CreateWebhooks). Its id is
 * the `webhook-id` header of every attempt, so a receiver can drop repeats.
 */
@Entity('webhook_deliveries')
@Index('uq_webhook_deliveries_endpoint_turn', ['endpointId', 'turnId'], { unique: true })
@Index('ix_webhook_deliveries_endpoint_created', ['endpointId', 'createdAt'])
@Index('ix_webhook_deliveries_turn', ['turnId'])
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_webhook_deliveries' })
  id!: string;

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId!: string;

  @Column({ name: 'turn_id', type: 'uuid' })
  turnId!: string;

  @Column({ name: 'event_type', type: 'varchar', length: 32 })
  eventType!: WebhookEventType;

  /** The body sent on every attempt (fixed when the turn ended). */
  @Column({ type: 'jsonb' })
  payload!: WebhookPayload;

  @Column({ type: 'varchar', length: 16, default: 'pending' })
  status!: WebhookDeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'last_status_code', type: 'integer', nullable: true })
  lastStatusCode!: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
