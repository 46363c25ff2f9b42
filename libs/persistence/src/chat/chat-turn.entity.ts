import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A turn's lifecycle: `queued` → `running` → `complete` | `cancelled` | `error`. */
export type TurnStatus = 'queued' | 'running' | 'complete' | 'cancelled' | 'error';
export const ACTIVE_TURN_STATUSES: readonly TurnStatus[] = ['queued', 'running'];

/**
 * One turn: the operator's message and the job answering it (job id = turn id). Unique indexes
 * allow one active turn per thread and one turn per client message id.
 */
@Entity('chat_turns')
@Index('uq_chat_turns_active_per_chat', ['chatId'], {
  unique: true,
  where: `status IN ('queued', 'running')`,
})
@Index('uq_chat_turns_client_message', ['chatId', 'clientMessageId'], {
  unique: true,
  where: 'client_message_id IS NOT NULL',
})
@Index('idx_chat_turns_chat_created', ['chatId', 'createdAt'])
export class ChatTurnEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'pk_chat_turns' })
  id!: string;

  @Column({ name: 'chat_id', type: 'uuid' })
  chatId!: string;

  @Column({ name: 'client_message_id', type: 'uuid', nullable: true })
  clientMessageId!: string | null;

  @Column({ type: 'varchar', length: 16 })
  status!: TurnStatus;

  /** Position in the queue when the turn was enqueued (1 = next). */
  @Column({ name: 'queue_position', type: 'integer', default: 1 })
  queuePosition!: number;

  /** The attempt running or last run (1, 2, …; 0 while never started). */
  @Column({ type: 'integer', default: 0 })
  attempt!: number;

  @Column({ name: 'worker_id', type: 'varchar', length: 200, nullable: true })
  workerId!: string | null;

  /** `TurnErrorCode` when the turn ended in `error`. */
  @Column({ name: 'error_code', type: 'varchar', length: 32, nullable: true })
  errorCode!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  /** Written by the worker running the turn every `TURN_HEARTBEAT_MS` (`TurnLedger.heartbeat`). */
  @Column({ name: 'alive_at', type: 'timestamptz', nullable: true })
  aliveAt!: Date | null;
}
