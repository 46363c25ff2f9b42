import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ApiTokenScope } from '@corpus-chat/contracts';

/** An operator's API token (migration 1764501200000-CreateApiTokens). The secret itself is never stored. */
@Entity('api_tokens')
@Index('ix_api_tokens_operator', ['operatorId', 'createdAt'])
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_api_tokens' })
  id!: string;

  @Column({ name: 'operator_id', type: 'uuid' })
  operatorId!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  @Column({ type: 'varchar', length: 16, default: 'read' })
  scope!: ApiTokenScope;

  /** Lower-case hex SHA-256 of the secret. */
  @Index('uq_api_tokens_token_hash', { unique: true })
  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash!: string;

  @Column({ type: 'varchar', length: 16 })
  prefix!: string;

  /** Set by the API (its clock also sets `expiresAt`, so the lifetime is exact). */
  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Null: no expiry. */
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  /** Last request it authenticated, written at most once a minute (migration 1764503400000). */
  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
