import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { NoteStage } from '@corpus-chat/contracts';

/** A note on a finding, written at one stage of its life (extraction, goal, retest, verdict, general). */
@Entity('finding_notes')
@Index('ix_finding_notes_finding', ['findingId'])
export class FindingNoteEntity {
  @PrimaryGeneratedColumn('identity', {
    primaryKeyConstraintName: 'pk_finding_notes',
    generatedIdentity: 'BY DEFAULT',
  })
  id!: number;

  @Column({ name: 'finding_id', type: 'integer' })
  findingId!: number;

  @Column({ type: 'text' })
  stage!: NoteStage;

  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text', nullable: true })
  author!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
