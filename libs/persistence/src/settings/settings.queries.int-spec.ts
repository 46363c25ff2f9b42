import { createTestDatabase, type TestDatabase } from '../testing';
import { readModelSettings, toSettingsView, writeModelSettings } from './settings.queries';

describe('settings queries (Postgres)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => db?.drop());

  it('starts as the built-in planner with nothing configured', async () => {
    const s = await readModelSettings(db.dataSource);
    expect(s).toMatchObject({
      backend: 'builtin',
      baseUrl: null,
      model: null,
      apiKey: null,
      updatedAt: null,
    });
    expect(toSettingsView(s).apiKeySet).toBe(false);
  });

  it('keeps the key when omitted, clears it with an empty string, and keeps server details when switching to builtin', async () => {
    await writeModelSettings(db.dataSource, {
      backend: 'openai',
      baseUrl: 'http://localhost:11434/v1',
      model: 'qwen3',
      apiKey: 'sk-1',
    });
    let s = await writeModelSettings(db.dataSource, { backend: 'openai', model: 'llama3.1' });
    expect(s).toMatchObject({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', apiKey: 'sk-1' });
    s = await writeModelSettings(db.dataSource, { backend: 'builtin' });
    expect((await readModelSettings(db.dataSource)).baseUrl).toBe('http://localhost:11434/v1');
    s = await writeModelSettings(db.dataSource, { backend: 'openai', apiKey: '' });
    const view = toSettingsView(await readModelSettings(db.dataSource));
    expect(view).toMatchObject({ backend: 'openai', apiKeySet: false, model: 'llama3.1' });
    expect(view.updatedAt).not.toBeNull();
    expect(JSON.stringify(view)).not.toContain('sk-1');
    expect(s.apiKey).toBeNull();
  });

  it('refuses a second row', async () => {
    await expect(
      db.dataSource.query(`INSERT INTO settings (id, backend) VALUES (2, 'builtin')`),
    ).rejects.toThrow(/ck_settings_single_row/);
  });
});
