import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { WebhookEventType } from '@corpus-chat/contracts';

/** A URL an operator registered for turn events (migration 1764503600000-CreateWebhooks). */
@Entity('webhook_endpoints')
@Index('ix_webhook_endpoints_operator', ['operatorId', 'createdAt'])
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_webhook_endpoints' })
  id!: string;

  /** Who registered it; its deliveries are listed to this operator only. */
  @Column({ name: 'operator_id', type: 'uuid' })
  operatorId!: string;

  @Column({ type: 'varchar', length: 2000 })
  url!: string;

  @Column({ type: 'varchar', length: 32, array: true })
  events!: WebhookEventType[];

  /** Every operator's turns, not only its owner's (admins only). */
  @Column({ name: 'all_operators', type: 'boolean', default: false })
  allOperators!: boolean;

  /** `whsec_…`: signs every delivery, so it is kept (and never answered after creation). */
  @Column({ type: 'varchar', length: 100 })
  secret!: string;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
