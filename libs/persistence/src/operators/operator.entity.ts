import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { OperatorLanguage, OperatorRole } from '@corpus-chat/contracts';

/** An operator account; usernames are unique case-insensitively (`uq_operators_username_lower`). */
@Entity('operators')
export class OperatorEntity {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_operators' })
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  username!: string;

  @Column({ name: 'display_name', type: 'varchar', length: 100 })
  displayName!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: OperatorRole;

  /** argon2id encoded hash (`$argon2id$v=19$…`); never leaves the API. */
  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  /**
   * When the password was last set: session tokens issued before this instant are refused, so a
   * password reset signs the operator out everywhere.
   */
  @Column({ name: 'password_changed_at', type: 'timestamptz', default: () => 'now()' })
  passwordChangedAt!: Date;

  @Column({ type: 'boolean', default: false })
  disabled!: boolean;

  /** The version every session token must carry (`ver`); bumping it ends all earlier sessions. */
  @Column({ name: 'token_version', type: 'integer', default: 0 })
  tokenVersion!: number;

  /** Interface and answer language, one of `OPERATOR_LANGUAGES` (`en` unless the operator chose). */
  @Column({ type: 'varchar', length: 2, default: 'en' })
  language!: OperatorLanguage;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
