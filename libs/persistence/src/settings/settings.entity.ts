import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ModelBackend } from '@corpus-chat/contracts';

/**
 * The deployment's model settings, one row (`ck_settings_single_row`), read per turn so a change
 * needs no restart. `api_key` is never returned by the API.
 */
@Entity('settings')
export class SettingsEntity {
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'pk_settings' })
  id!: number;

  @Column({ type: 'varchar', length: 16, default: 'builtin' })
  backend!: ModelBackend;

  @Column({ name: 'base_url', type: 'text', nullable: true })
  baseUrl!: string | null;

  @Column({ name: 'api_key', type: 'text', nullable: true })
  apiKey!: string | null;

  @Column({ type: 'text', nullable: true })
  model!: string | null;

  /** When an operator last saved the settings; null while they are the defaults. */
  @Column({ name: 'updated_at', type: 'timestamptz', nullable: true })
  updatedAt!: Date | null;
}
