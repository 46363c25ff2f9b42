import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * When an operator last saw a thread (migration CreateChatReads): a thread whose newest answer is
 * newer is unread. Kept on the server, so it holds across the operator's devices.
 */
@Entity('chat_reads')
@Index('idx_chat_reads_chat', ['chatId'])
export class ChatReadEntity {
  @PrimaryColumn({ name: 'operator_id', type: 'uuid', primaryKeyConstraintName: 'pk_chat_reads' })
  operatorId!: string;

  @PrimaryColumn({ name: 'chat_id', type: 'uuid', primaryKeyConstraintName: 'pk_chat_reads' })
  chatId!: string;

  @Column({ name: 'seen_at', type: 'timestamptz', default: () => 'now()' })
  seenAt!: Date;
}
