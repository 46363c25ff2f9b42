import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '@corpus-chat/server-core';
import type { AuthEnv } from './auth.env';

/**
 * Reads the secret stored in `file`, or creates it (mode 600, exclusive create so two processes
 * starting together end up with the same value) from `generate()`. Returns the trimmed content.
 */
export function readOrCreateSecretFile(file: string, generate: () => string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    fs.writeFileSync(file, `${generate()}\n`, { flag: 'wx', mode: 0o600 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const value = fs.readFileSync(file, 'utf8').trim();
  if (!value) throw new Error(`${file} is empty: delete it and start again`);
  return value;
}

/**
 * The JWT signing secret: `JWT_SECRET` when set; otherwise, outside production, the one kept in
 * `${DATA_DIR}/jwt-secret` (generated on first start). Throws `ConfigError` in production without one.
 */
export function resolveJwtSecret(env: AuthEnv): string {
  if (env.JWT_SECRET) return env.JWT_SECRET;
  if (env.NODE_ENV === 'production') {
    throw new ConfigError([
      'JWT_SECRET: required in production (at least 32 random characters, the same on every API instance)',
    ]);
  }
  return readOrCreateSecretFile(path.resolve(env.DATA_DIR, 'jwt-secret'), () =>
    crypto.randomBytes(48).toString('base64url'),
  );
}
