import { provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import type { OperatorView } from '@corpus-chat/contracts';
import { csrfHeaderInterceptor } from '../http/csrf-header.interceptor';
import { AuthStore } from './auth-store';

const alice: OperatorView = {
  id: 'o1',
  username: 'alice',
  displayName: 'Alice Analyst',
  role: 'admin',
  disabled: false,
  language: 'en',
  createdAt: '2026-01-01T00:00:00Z',
};

describe('AuthStore', () => {
  let http: HttpTestingController;
  let auth: AuthStore;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [provideHttpClient(withInterceptors([csrfHeaderInterceptor])), provideHttpClientTesting()],
    });
    http = TestBed.inject(HttpTestingController);
    auth = TestBed.inject(AuthStore);
  });

  it('asks /api/auth/me once for concurrent callers and keeps the operator', async () => {
    const a = auth.loadSession();
    const b = auth.loadSession();
    http.expectOne('/api/auth/me').flush(alice);
    expect(await a).toEqual({ status: 'signed-in', operator: alice });
    expect(await b).toEqual({ status: 'signed-in', operator: alice });
    expect(auth.operator()?.displayName).toBe('Alice Analyst');
    expect(auth.isAdmin()).toBe(true);
  });

  it('is signed out on 401 and signs in with the CSRF header on the request', async () => {
    const load = auth.loadSession();
    http
      .expectOne('/api/auth/me')
      .flush({ statusCode: 401, message: 'Sign in first.' }, { status: 401, statusText: 'Unauthorized' });
    expect((await load).status).toBe('signed-out');

    const wrong = auth.signIn('alice', 'nope');
    const req1 = http.expectOne('/api/auth/login');
    expect(req1.request.headers.get('X-Requested-With')).toBe('XMLHttpRequest');
    req1.flush(
      { statusCode: 401, message: 'Invalid credentials' },
      { status: 401, statusText: 'Unauthorized' },
    );
    expect(await wrong).toBe('Wrong username or password.');
    expect(auth.session().status).not.toBe('signed-in');

    const disabled = auth.signIn('alice', 'correct horse');
    http
      .expectOne('/api/auth/login')
      .flush(
        { statusCode: 403, message: 'This account is disabled. Ask an administrator to enable it again.' },
        { status: 403, statusText: 'Forbidden' },
      );
    expect(await disabled).toBe('This account is disabled. Ask an administrator to enable it again.');
    expect(auth.session().status).not.toBe('signed-in');

    const right = auth.signIn('alice', 'correct horse');
    const req2 = http.expectOne('/api/auth/login');
    expect(req2.request.body).toEqual({ username: 'alice', password: 'correct horse' });
    req2.flush(alice);
    expect(await right).toBeNull();
    expect(auth.session().status).toBe('signed-in');

    const out = auth.signOut();
    http.expectOne('/api/auth/logout').flush(null, { status: 204, statusText: 'No Content' });
    await out;
    expect(auth.session()).toEqual({ status: 'signed-out' });
  });

  it('marks the session expired only when it was signed in', async () => {
    const load = auth.loadSession();
    http.expectOne('/api/auth/me').flush(alice);
    await load;
    auth.markSessionExpired();
    expect(auth.session()).toEqual({
      status: 'signed-out',
      reason: 'Your session has ended. Sign in again.',
    });
  });
});
