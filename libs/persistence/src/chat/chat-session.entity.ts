import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** Where a thread's title came from: the default, the first message (auto), or the operator. */
export type ChatTitleSource = 'default' | 'auto' | 'user';

/**
 * A chat thread, owned by one operator (`owner_id`; every query that reads it takes the owner).
 * The corpus is shared; threads are not.
 */
@Entity('chat_sessions')
@Index('idx_chat_sessions_owner_updated', ['ownerId', 'archived', 'updatedAt'])
export class ChatSessionEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_chat_sessions' })
  id!: string;

  /** The operator who owns the thread (`operators.id`; the foreign key is added with the operators table). */
  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @Column({ type: 'varchar', length: 200 })
  title!: string;

  @Column({ name: 'title_source', type: 'varchar', length: 16, default: 'default' })
  titleSource!: ChatTitleSource;

  /** The model that answered the last turn (null until one did). */
  @Column({ name: 'last_model', type: 'varchar', length: 200, nullable: true })
  lastModel!: string | null;

  @Column({ type: 'boolean', default: false })
  archived!: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;

  /** Last change: a message, a finished turn, a rename. Threads list newest first by it. */
  @Column({ name: 'updated_at', type: 'timestamptz', default: () => 'now()' })
  updatedAt!: Date;
}
