import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * Single row (`id = 1`) holding the corpus version: every change to the corpus (an import, an
 * archive toggle, the generator) bumps `version` in its own transaction, and the query cache keys
 * its entries by it.
 */
@Entity('corpus_state')
export class CorpusStateEntity {
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'pk_corpus_state' })
  id!: number;

  @Column({ type: 'bigint' })
  version!: string;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
