import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { AssistantMessageMetadata, MessageRole, MessageStatus } from '@corpus-chat/contracts';

/**
 * A thread's question or answer; at most one answer per turn (`uq_chat_messages_turn_assistant`).
 * Tool output is not stored, only the metadata cards and follow-ups need. The generated column
 * `follow_up` is read only by `TurnLedger.startRun`, so it is not mapped.
 */
@Entity('chat_messages')
@Index('uq_chat_messages_turn_assistant', ['turnId'], { unique: true, where: `role = 'assistant'` })
@Index('uq_chat_messages_turn_user', ['turnId'], { unique: true, where: `role = 'user'` })
@Index('idx_chat_messages_chat_created', ['chatId', 'createdAt'])
export class ChatMessageEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_chat_messages' })
  id!: string;

  @Column({ name: 'chat_id', type: 'uuid' })
  chatId!: string;

  @Column({ name: 'turn_id', type: 'uuid' })
  turnId!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: MessageRole;

  @Column({ type: 'text' })
  content!: string;

  @Column({ type: 'varchar', length: 16, default: 'complete' })
  status!: MessageStatus;

  @Column({ type: 'jsonb', default: () => `'{}'::jsonb` })
  metadata!: AssistantMessageMetadata | Record<string, never>;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'clock_timestamp()' })
  createdAt!: Date;
}
