import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { CreateOperatorDto, OperatorView, UpdateOperatorDto } from '@corpus-chat/contracts';
import {
  OperatorEntity,
  bumpTokenVersion,
  deleteOperatorSessionsOf,
  deleteApiTokensOf,
  isUniqueViolation,
  recordAuditEvent,
} from '@corpus-chat/persistence';
import { toOperatorView } from '../auth/auth.service';
import { AUTH_ENV, type AuthEnv } from '../auth/auth.env';
import type { AuthenticatedOperator } from '../auth/current-operator';
import { hashPassword } from '../auth/passwords';
import { SocketAuthService } from '../auth/socket-auth.service';

/**
 * Operator accounts, managed by admins. A disable, re-enable or password reset changes the token
 * version, so older tokens are refused and open sockets disconnected on every instance.
 */
@Injectable()
export class OperatorsService {
  private readonly logger = new Logger(OperatorsService.name);

  constructor(
    private readonly db: DataSource,
    private readonly sockets: SocketAuthService,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {}

  private get repo() {
    return this.db.getRepository(OperatorEntity);
  }

  /** Every operator, oldest first. */
  async list(): Promise<OperatorView[]> {
    const rows = await this.repo.find({ order: { createdAt: 'ASC', username: 'ASC' } });
    return rows.map(toOperatorView);
  }

  /** Creates an operator on behalf of `actor` (audited); 409 when the username is taken (ignoring case). */
  async create(dto: CreateOperatorDto, actor: AuthenticatedOperator): Promise<OperatorView> {
    const passwordHash = await hashPassword(dto.password, this.env.PASSWORD_HASH_MEMORY_KIB);
    try {
      const saved = await this.db.transaction(async (tx) => {
        const repo = tx.getRepository(OperatorEntity);
        const row = await repo.save(
          repo.create({
            username: dto.username,
            displayName: dto.displayName.trim(),
            role: dto.role,
            passwordHash,
            disabled: false,
          }),
        );
        await recordAuditEvent(tx, {
          action: 'operator.create',
          actor,
          subjectType: 'operator',
          subjectId: row.id,
          after: { username: row.username, displayName: row.displayName, role: row.role },
        });
        return row;
      });
      this.logger.log({ msg: 'operator created', operatorId: saved.id, role: saved.role });
      return toOperatorView(saved);
    } catch (e) {
      if (isUniqueViolation(e, 'uq_operators_username_lower')) {
        throw new ConflictException(`An operator named "${dto.username}" already exists.`);
      }
      throw e;
    }
  }

  /**
   * Updates operator `id`: 404 unknown, 400 when an admin would disable or demote themself, 409
   * when no enabled admin would remain. Disabling deletes the operator's API tokens.
   */
  async update(id: string, dto: UpdateOperatorDto, actor: AuthenticatedOperator): Promise<OperatorView> {
    const result = await this.db.transaction(async (tx) => {
      const repo = tx.getRepository(OperatorEntity);
      // Lock the admins so two concurrent demotions cannot leave none.
      await tx.query(`SELECT id FROM operators WHERE role = 'admin' FOR UPDATE`);
      const operator = await repo.findOneBy({ id });
      if (!operator) throw new NotFoundException('No such operator.');
      if (operator.id === actor.id && (dto.disabled === true || (dto.role && dto.role !== 'admin'))) {
        throw new BadRequestException('You cannot disable or demote your own account.');
      }
      const wasActiveAdmin = operator.role === 'admin' && !operator.disabled;
      const before = { displayName: operator.displayName, role: operator.role, disabled: operator.disabled };
      if (dto.displayName !== undefined) operator.displayName = dto.displayName.trim();
      if (dto.role !== undefined) operator.role = dto.role;
      const revoke =
        (dto.disabled !== undefined && dto.disabled !== operator.disabled) || dto.password !== undefined;
      if (dto.disabled !== undefined) operator.disabled = dto.disabled;
      if (dto.password !== undefined) {
        operator.passwordHash = await hashPassword(dto.password, this.env.PASSWORD_HASH_MEMORY_KIB);
        operator.passwordChangedAt = new Date();
      }
      if (wasActiveAdmin && (operator.role !== 'admin' || operator.disabled)) {
        const others = await repo.countBy({ role: 'admin', disabled: false });
        if (others <= 1) throw new ConflictException('At least one enabled admin must remain.');
      }
      const saved = await repo.save(operator);
      const after = { displayName: saved.displayName, role: saved.role, disabled: saved.disabled };
      const keys = (Object.keys(before) as (keyof typeof before)[]).filter((k) => before[k] !== after[k]);
      await recordAuditEvent(tx, {
        action: 'operator.update',
        actor,
        subjectType: 'operator',
        subjectId: id,
        before: Object.fromEntries(keys.map((k) => [k, before[k]])),
        // The password itself never: only that it was reset.
        after: {
          ...Object.fromEntries(keys.map((k) => [k, after[k]])),
          ...(dto.password !== undefined ? { passwordReset: true } : {}),
        },
      });
      if (revoke) {
        saved.tokenVersion = (await bumpTokenVersion(tx, id)) ?? saved.tokenVersion;
        await deleteOperatorSessionsOf(tx, id);
      }
      // A disabled account's API tokens go for good (re-enabling it must not revive them), and so
      // do those of a reset password (whoever knew the old one may have minted them).
      if (dto.disabled === true || dto.password !== undefined) await deleteApiTokensOf(tx, id);
      return { saved, revoke };
    });
    if (result.revoke) this.sockets.disconnectOperator(id);
    this.logger.log({
      msg: 'operator updated',
      operatorId: id,
      by: actor.id,
      fields: Object.keys(dto).filter((k) => k !== 'password'),
    });
    return toOperatorView(result.saved);
  }
}
