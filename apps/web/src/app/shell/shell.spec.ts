import { HttpErrorResponse } from '@angular/common/http';
import { Component, signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Router, provideRouter } from '@angular/router';
import { RouterTestingHarness } from '@angular/router/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { OperatorView } from '@corpus-chat/contracts';
import { AuthApi } from '../auth/auth-api';
import { AuthStore } from '../auth/auth-store';
import { adminGuard } from '../auth/auth.guard';
import { ChatSocket } from '../chat/chat-socket';
import { ChatApi } from '../chat/chat-api';
import { Shell } from './shell';

@Component({ template: 'page' })
class Page {}

const person = (role: OperatorView['role']): OperatorView => ({
  id: `id-${role}`,
  username: role === 'admin' ? 'root' : 'olga',
  displayName: role === 'admin' ? 'Root Admin' : 'Olga Operator',
  role,
  disabled: false,
  language: 'en',
  createdAt: '2026-01-01T00:00:00Z',
});

describe('Shell navigation and admin-only pages', () => {
  let harness: RouterTestingHarness;
  const navLinks = (): string[] =>
    Array.from(
      harness.fixture.nativeElement.querySelectorAll(
        'nav[aria-label="Main"] a',
      ) as NodeListOf<HTMLAnchorElement>,
    ).map((a) => a.textContent!.trim());

  async function signedInAs(role: OperatorView['role']): Promise<void> {
    TestBed.configureTestingModule({
      providers: [
        provideRouter([
          {
            path: '',
            component: Shell,
            children: [
              { path: 'chat', component: Page },
              { path: 'account', component: Page },
              { path: 'settings', component: Page, canActivate: [adminGuard] },
              { path: 'operators', component: Page, canActivate: [adminGuard] },
            ],
          },
        ]),
        { provide: AuthApi, useValue: { me: () => Promise.resolve(person(role)) } },
        { provide: ChatApi, useValue: { list: async () => [] } },
        {
          provide: ChatSocket,
          useValue: {
            connect: vi.fn(),
            disconnect: vi.fn(),
            reconnect: vi.fn(),
            state: signal('connected'),
            lastError: signal(null),
            connectFailures: signal(0),
            onThreadUpdated: () => () => undefined,
            onActivity: () => () => undefined,
          },
        },
      ],
    });
    await TestBed.inject(AuthStore).loadSession();
    harness = await RouterTestingHarness.create();
    await harness.navigateByUrl('/chat');
  }

  beforeEach(() => TestBed.resetTestingModule());

  it('shows Operators, Settings, the audit log and feedback to an admin, who can open them', async () => {
    await signedInAs('admin');
    expect(navLinks()).toEqual([
      'Chat',
      'Reports',
      'Findings',
      'Operators',
      'Settings',
      'Audit log',
      'Feedback',
    ]);
    await harness.navigateByUrl('/operators');
    expect(TestBed.inject(Router).url).toBe('/operators');
  });

  it('hides Operators and Settings from an operator, and sends their URLs back to the chat', async () => {
    await signedInAs('operator');
    expect(navLinks()).toEqual(['Chat', 'Reports', 'Findings']);
    await harness.navigateByUrl('/settings');
    expect(TestBed.inject(Router).url).toBe('/chat?denied=settings');
    await harness.navigateByUrl('/operators?x=1');
    expect(TestBed.inject(Router).url).toBe('/chat?denied=operators');
  });

  it('links the signed-in operator to their account page (change my password)', async () => {
    await signedInAs('operator');
    const me = harness.fixture.nativeElement.querySelector(
      '[data-testid="operator"] a.me',
    ) as HTMLAnchorElement;
    expect(new URL(me.href).pathname).toBe('/account');
    expect(me.textContent).toContain('Olga Operator');
  });
});

describe('Shell when the chat socket cannot connect', () => {
  async function setUp(
    me: () => Promise<OperatorView>,
    refusal = { state: 'offline', error: 'unauthorized' },
  ) {
    const state = signal<string>('connected');
    const lastError = signal<string | null>(null);
    const connectFailures = signal(0);
    const socket = {
      connect: vi.fn(),
      disconnect: vi.fn(),
      reconnect: vi.fn(),
      state,
      lastError,
      connectFailures,
      onThreadUpdated: () => () => undefined,
      onActivity: () => () => undefined,
    };
    let signedIn = false;
    TestBed.configureTestingModule({
      providers: [
        provideRouter([
          { path: '', component: Shell, children: [{ path: 'chat', component: Page }] },
          { path: 'login', component: Page },
        ]),
        { provide: AuthApi, useValue: { me: () => (signedIn ? me() : Promise.resolve(person('operator'))) } },
        { provide: ChatSocket, useValue: socket },
        { provide: ChatApi, useValue: { list: async () => [] } },
      ],
    });
    await TestBed.inject(AuthStore).loadSession();
    signedIn = true;
    const harness = await RouterTestingHarness.create();
    await harness.navigateByUrl('/chat');
    // The server ended the socket and the one automatic retry was refused.
    state.set(refusal.state);
    lastError.set(refusal.error);
    connectFailures.set(1);
    harness.fixture.detectChanges();
    await vi.waitFor(() =>
      expect(
        socket.reconnect.mock.calls.length + (TestBed.inject(Router).url.startsWith('/login') ? 1 : 0),
      ).toBe(1),
    );
    return socket;
  }

  beforeEach(() => TestBed.resetTestingModule());

  it('goes to the login page, coming back afterwards, when the API says the session ended', async () => {
    const socket = await setUp(() =>
      Promise.reject(new HttpErrorResponse({ status: 401, url: '/api/auth/me' })),
    );
    expect(TestBed.inject(Router).url).toBe('/login?returnUrl=%2Fchat');
    expect(TestBed.inject(AuthStore).session()).toMatchObject({
      status: 'signed-out',
      reason: expect.stringMatching(/session has ended/),
    });
    expect(socket.reconnect).not.toHaveBeenCalled();
  });

  it('connects again when the session is still valid (its cookie was renewed since)', async () => {
    const socket = await setUp(() => Promise.resolve(person('operator')));
    expect(socket.reconnect).toHaveBeenCalledTimes(1);
    expect(TestBed.inject(Router).url).toBe('/chat');
  });

  it('connects again after an "unavailable" refusal once the session checks out (the database is back)', async () => {
    const socket = await setUp(() => Promise.resolve(person('operator')), {
      state: 'offline',
      error: 'unavailable',
    });
    expect(socket.reconnect).toHaveBeenCalledTimes(1);
    expect(TestBed.inject(Router).url).toBe('/chat');
  });

  it('checks the session when a WebSocket upgrade is refused without a reason (the client keeps retrying)', async () => {
    await setUp(() => Promise.reject(new HttpErrorResponse({ status: 401, url: '/api/auth/me' })), {
      state: 'reconnecting',
      error: 'websocket error',
    });
    expect(TestBed.inject(Router).url).toBe('/login?returnUrl=%2Fchat');
  });
});
