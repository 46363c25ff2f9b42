import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiTokenView, CreatedApiToken } from '@corpus-chat/contracts';
import { csrfHeaderInterceptor } from '../http/csrf-header.interceptor';
import { ApiTokensStore } from './api-tokens-store';

const older: ApiTokenView = {
  id: 't1',
  name: 'CI',
  scope: 'read',
  prefix: 'cc_pat_AbCd',
  createdAt: '2026-01-01T00:00:00Z',
  expiresAt: null,
  lastUsedAt: '2026-01-05T10:00:00Z',
};
const created: CreatedApiToken = {
  id: 't2',
  name: 'VS Code',
  scope: 'read',
  prefix: 'cc_pat_XyZ0',
  createdAt: '2026-02-01T00:00:00Z',
  expiresAt: '2026-03-03T00:00:00Z',
  lastUsedAt: null,
  secret: 'cc_pat_XyZ0' + 'a'.repeat(39),
};

describe('ApiTokensStore', () => {
  let http: HttpTestingController;
  let store: ApiTokensStore;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [provideHttpClient(withInterceptors([csrfHeaderInterceptor])), provideHttpClientTesting()],
    });
    http = TestBed.inject(HttpTestingController);
    store = TestBed.inject(ApiTokensStore);
  });

  it('lists the tokens, adds a created one first without its secret, and drops a revoked one', async () => {
    const load = store.load();
    http.expectOne('/api/auth/tokens').flush([older]);
    await load;
    expect(store.tokens()).toEqual([older]);

    const create = store.create({ name: 'VS Code', expiresInDays: 30, password: 'pw' });
    const post = http.expectOne({ method: 'POST', url: '/api/auth/tokens' });
    expect(post.request.body).toEqual({ name: 'VS Code', expiresInDays: 30, password: 'pw' });
    expect(post.request.headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    post.flush(created);
    expect(await create).toEqual({ ok: true, token: created });
    expect(store.tokens().map((t) => t.id)).toEqual(['t2', 't1']);
    expect(JSON.stringify(store.tokens())).not.toContain(created.secret);

    const revoke = store.revoke('t1');
    http
      .expectOne({ method: 'DELETE', url: '/api/auth/tokens/t1' })
      .flush(null, { status: 204, statusText: 'No Content' });
    expect(await revoke).toBeNull();
    expect(store.tokens().map((t) => t.id)).toEqual(['t2']);
  });

  it('says why a token was refused and keeps the list as it was', async () => {
    const create = store.create({ name: 'one too many', password: 'pw' });
    http
      .expectOne('/api/auth/tokens')
      .flush(
        { statusCode: 409, message: 'You hold 20 API tokens already: revoke one you no longer use first.' },
        { status: 409, statusText: 'Conflict' },
      );
    const result = await create;
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/revoke one you no longer use/);
    expect(store.tokens()).toEqual([]);
  });
});
