import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConfigError } from '@corpus-chat/server-core';
import { OperatorEntity, hasEnabledAdmin, isUniqueViolation } from '@corpus-chat/persistence';
import { AUTH_ENV, type AuthEnv } from '../auth/auth.env';
import { hashPassword } from '../auth/passwords';

/**
 * Where development leaves the generated admin password, one file per database so `npm start` never
 * shows another database's; tools/start/start.mjs builds the same name.
 */
export function adminPasswordFileName(databaseUrl: string): string {
  const u = new URL(databaseUrl);
  const key = `${u.hostname}-${u.port || '5432'}-${decodeURIComponent(u.pathname.replace(/^\//, ''))}`;
  return `admin-password.${key.replace(/[^a-zA-Z0-9_.-]/g, '_')}.txt`;
}

/**
 * Creates the first admin at start-up when no enabled admin exists (`ADMIN_USERNAME`,
 * `ADMIN_PASSWORD`). Without a password: development generates one (printed, written mode 600 for
 * `npm start`), production stops with a `ConfigError`, tests create nothing.
 */
@Injectable()
export class AdminBootstrapService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminBootstrapService.name);

  constructor(
    private readonly db: DataSource,
    @Inject(AUTH_ENV) private readonly env: AuthEnv,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureFirstAdmin();
  }

  /** Returns what it did: `exists`, `created`, or `skipped` (tests without ADMIN_PASSWORD). */
  async ensureFirstAdmin(): Promise<'exists' | 'created' | 'skipped'> {
    if (await hasEnabledAdmin(this.db)) return 'exists';
    let password = this.env.ADMIN_PASSWORD;
    let generated = false;
    if (!password) {
      if (this.env.NODE_ENV === 'production') {
        throw new ConfigError([
          'ADMIN_PASSWORD: required in production while no admin exists (at least 10 characters)',
        ]);
      }
      if (this.env.NODE_ENV === 'test') return 'skipped';
      password = crypto.randomBytes(15).toString('base64url');
      generated = true;
    }
    const username = this.env.ADMIN_USERNAME;
    const repo = this.db.getRepository(OperatorEntity);
    try {
      await repo.insert({
        username,
        displayName: 'Administrator',
        role: 'admin',
        passwordHash: await hashPassword(password, this.env.PASSWORD_HASH_MEMORY_KIB),
        disabled: false,
      });
    } catch (e) {
      // Another API instance created it at the same time, or a disabled operator holds the name.
      if (!isUniqueViolation(e, 'uq_operators_username_lower')) throw e;
      if (await hasEnabledAdmin(this.db)) return 'exists';
      throw new ConfigError([
        `ADMIN_USERNAME: "${username}" belongs to a disabled operator or a non-admin; choose another name`,
      ]);
    }
    if (generated) {
      const file = path.resolve(this.env.DATA_DIR, adminPasswordFileName(this.env.DATABASE_URL));
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
      fs.chmodSync(file, 0o600);
      // Printed once, on purpose: the only way to learn a generated password.
      process.stdout.write(
        `\n  First admin created: sign in as "${username}" with password ${password}\n  (also in ${file}; change it under Operators)\n\n`,
      );
    }
    this.logger.log({ msg: 'first admin created', username, generatedPassword: generated });
    return 'created';
  }
}
