import type { DataSource, EntityManager } from 'typeorm';
import type { ModelBackend, SettingsView } from '@corpus-chat/contracts';
import { SettingsEntity } from './settings.entity';

/** The id of the one settings row. */
export const SETTINGS_ROW_ID = 1;

/** Model settings as the agent reads them (the API key included: server side only). */
export interface ModelSettings {
  backend: ModelBackend;
  baseUrl: string | null;
  model: string | null;
  apiKey: string | null;
  updatedAt: Date | null;
}

/** What `writeModelSettings` changes. An omitted `apiKey` keeps the stored one; `''` clears it. */
export interface ModelSettingsUpdate {
  backend: ModelBackend;
  baseUrl?: string | null;
  model?: string | null;
  apiKey?: string | null;
}

const DEFAULTS: ModelSettings = {
  backend: 'builtin',
  baseUrl: null,
  model: null,
  apiKey: null,
  updatedAt: null,
};

/**
 * The stored model settings, or the defaults (`builtin`, nothing configured) when the row is
 * missing (a database migrated but never written).
 */
export async function readModelSettings(db: DataSource | EntityManager): Promise<ModelSettings> {
  const row = await db.getRepository(SettingsEntity).findOneBy({ id: SETTINGS_ROW_ID });
  if (!row) return { ...DEFAULTS };
  return {
    backend: row.backend,
    baseUrl: row.baseUrl,
    model: row.model,
    apiKey: row.apiKey,
    updatedAt: row.updatedAt,
  };
}

/**
 * Upserts the settings row. `undefined` keeps a stored value (so switching to `builtin` and back
 * keeps the server); `apiKey` `''` or `null` clears it. The caller validates.
 */
export async function writeModelSettings(
  db: DataSource | EntityManager,
  update: ModelSettingsUpdate,
): Promise<ModelSettings> {
  const current = await readModelSettings(db);
  const next: ModelSettings = {
    backend: update.backend,
    baseUrl: update.baseUrl === undefined ? current.baseUrl : update.baseUrl?.trim() || null,
    model: update.model === undefined ? current.model : update.model?.trim() || null,
    apiKey: update.apiKey === undefined ? current.apiKey : update.apiKey || null,
    updatedAt: new Date(),
  };
  await db.getRepository(SettingsEntity).upsert({ id: SETTINGS_ROW_ID, ...next }, ['id']);
  return next;
}

/** The settings as `GET /api/settings` shows them: never the key itself. */
export function toSettingsView(s: ModelSettings): SettingsView {
  return {
    backend: s.backend,
    baseUrl: s.baseUrl,
    model: s.model,
    apiKeySet: !!s.apiKey,
    updatedAt: s.updatedAt ? s.updatedAt.toISOString() : null,
  };
}
