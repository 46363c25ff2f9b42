import type { DataSource } from 'typeorm';
import { ModelSettingsProvider } from './model-settings.provider';

/** A DataSource whose settings reads resolve when the test says, each with its own value. */
function fakeDataSource() {
  const reads: { resolve: (row: unknown) => void; reject: (e: Error) => void }[] = [];
  const ds = {
    getRepository: () => ({
      findOneBy: () => new Promise((resolve, reject) => reads.push({ resolve, reject })),
    }),
  } as unknown as DataSource;
  const row = (model: string) => ({
    id: 1,
    backend: 'openai',
    baseUrl: 'http://m/v1',
    model,
    apiKey: null,
    updatedAt: null,
  });
  return { ds, reads, row };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('ModelSettingsProvider without a cache (AGENT_SETTINGS_CACHE_MS = 0)', () => {
  it('serves every caller a read that started after its call, sharing reads between turns that start together', async () => {
    const { ds, reads, row } = fakeDataSource();
    const provider = new ModelSettingsProvider(ds, 0);
    const a = provider.get();
    expect(reads).toHaveLength(1);
    // Called while the first read is in flight: they wait for one read that starts after it.
    const b = provider.get();
    const c = provider.get();
    expect(reads).toHaveLength(1);
    reads[0].resolve(row('before'));
    expect((await a).model).toBe('before');
    await tick();
    expect(reads).toHaveLength(2);
    reads[1].resolve(row('after'));
    expect((await b).model).toBe('after');
    expect((await c).model).toBe('after');
    // Nothing in flight: the next caller starts its own read.
    const d = provider.get();
    expect(reads).toHaveLength(3);
    reads[2].resolve(row('later'));
    expect((await d).model).toBe('later');
  });

  it('a failed read rejects its callers only; the waiting ones get the next read', async () => {
    const { ds, reads, row } = fakeDataSource();
    const provider = new ModelSettingsProvider(ds, 0);
    const a = provider.get();
    const b = provider.get();
    reads[0].reject(new Error('db down'));
    await expect(a).rejects.toThrow('db down');
    await tick();
    reads[1].resolve(row('back'));
    expect((await b).model).toBe('back');
  });
});
