import { HttpErrorResponse } from '@angular/common/http';
import { signal } from '@angular/core';
import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { CreateOperatorDto, OperatorView, UpdateOperatorDto } from '@corpus-chat/contracts';
import { AuthApi } from '../auth/auth-api';
import { AuthStore } from '../auth/auth-store';
import { ChatSocket } from '../chat/chat-socket';
import { OperatorsApi } from './operators-api';
import { OperatorsPage } from './operators-page';

const at = '2026-01-01T00:00:00Z';
const root: OperatorView = {
  id: 'a1',
  username: 'root',
  displayName: 'Root',
  role: 'admin',
  disabled: false,
  language: 'en',
  createdAt: at,
};
const olga: OperatorView = {
  id: 'o1',
  username: 'olga',
  displayName: 'Olga',
  role: 'operator',
  disabled: false,
  language: 'en',
  createdAt: at,
};

describe('OperatorsPage', () => {
  let fixture: ComponentFixture<OperatorsPage>;
  let rows: OperatorView[];
  let api: {
    list: ReturnType<typeof vi.fn>;
    create: ReturnType<typeof vi.fn>;
    update: ReturnType<typeof vi.fn>;
  };
  let authApi: { me: ReturnType<typeof vi.fn>; changePassword: ReturnType<typeof vi.fn> };
  let socket: { connect: ReturnType<typeof vi.fn>; disconnect: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  /** Bound for the mocked API's answers to reach the page. */
  const WAIT = { timeout: 2000 };
  const notice = () => el().querySelector('[data-testid="operators-notice"]')?.textContent?.trim();
  const type = (selector: string, value: string): void => {
    const input = el().querySelector<HTMLInputElement | HTMLSelectElement>(selector)!;
    input.value = value;
    input.dispatchEvent(new Event(input.tagName === 'SELECT' ? 'change' : 'input'));
  };
  const button = (text: string, scope: ParentNode = el()): HTMLButtonElement =>
    Array.from(scope.querySelectorAll('button')).find((b) => b.textContent!.trim() === text)!;
  const row = (username: string): HTMLElement =>
    Array.from(el().querySelectorAll<HTMLElement>('[data-testid="operator-row"]')).find((r) =>
      r.textContent!.includes(username),
    )!;

  beforeEach(async () => {
    rows = [root, olga];
    api = {
      list: vi.fn(() => Promise.resolve(rows.map((r) => ({ ...r })))),
      create: vi.fn((dto: CreateOperatorDto) => {
        if (rows.some((r) => r.username.toLowerCase() === dto.username.toLowerCase())) {
          return Promise.reject(
            new HttpErrorResponse({
              status: 409,
              error: { statusCode: 409, message: `An operator named "${dto.username}" already exists.` },
            }),
          );
        }
        const created: OperatorView = {
          id: `n${rows.length}`,
          username: dto.username,
          displayName: dto.displayName,
          role: dto.role,
          disabled: false,
          language: 'en',
          createdAt: at,
        };
        rows.push(created);
        return Promise.resolve(created);
      }),
      update: vi.fn((id: string, dto: UpdateOperatorDto) => {
        const r = rows.find((x) => x.id === id)!;
        if (
          dto.role === 'operator' &&
          rows.filter((x) => x.role === 'admin' && !x.disabled).length <= 1 &&
          r.role === 'admin'
        ) {
          return Promise.reject(
            new HttpErrorResponse({
              status: 409,
              error: { statusCode: 409, message: 'At least one enabled admin must remain.' },
            }),
          );
        }
        Object.assign(
          r,
          dto.disabled !== undefined ? { disabled: dto.disabled } : {},
          dto.role ? { role: dto.role } : {},
        );
        return Promise.resolve({ ...r });
      }),
    };
    authApi = { me: vi.fn(() => Promise.resolve(root)), changePassword: vi.fn(() => Promise.resolve(root)) };
    socket = { connect: vi.fn(), disconnect: vi.fn() };
    TestBed.configureTestingModule({
      providers: [
        provideRouter([]),
        { provide: OperatorsApi, useValue: api },
        { provide: AuthApi, useValue: authApi },
        { provide: ChatSocket, useValue: { ...socket, state: signal('connected') } },
      ],
    });
    await TestBed.inject(AuthStore).loadSession();
    fixture = TestBed.createComponent(OperatorsPage);
    await vi.waitFor(
      () => expect(el().querySelectorAll('[data-testid="operator-row"]').length).toBe(2),
      WAIT,
    );
  });

  it('lists operators; the signed-in admin cannot disable or demote themself', async () => {
    expect(el().querySelectorAll('[data-testid="operator-row"]').length).toBe(2);
    expect(row('root').textContent).toContain('you');
    expect(button('Disable', row('root'))).toBeUndefined();
    expect(row('root').querySelector<HTMLSelectElement>('select')!.disabled).toBe(true);
    // "Change my password" lives on the account page; my row links there.
    expect(new URL(row('root').querySelector<HTMLAnchorElement>('a[href]')!.href).pathname).toBe('/account');
    expect(el().querySelector('#cp-current')).toBeNull();
    expect(button('Disable', row('olga'))).toBeDefined();
    // Each row's select shows that operator's role (not the first option).
    expect(row('root').querySelector<HTMLSelectElement>('select')!.value).toBe('admin');
    expect(row('olga').querySelector<HTMLSelectElement>('select')!.value).toBe('operator');
  });

  it('adds an operator with the CreateOperatorDto, and shows the reason when the name is taken', async () => {
    button('Add operator').click();
    await vi.waitFor(() => expect(el().querySelector('#op-password-hint')!.classList).toContain('bad'), WAIT);
    expect(api.create).not.toHaveBeenCalled();

    type('#op-username', 'bob');
    type('#op-display', 'Bob Builder');
    type('#op-role', 'admin');
    type('#op-password', 'a-long-password');
    button('Add operator').click();
    // Added: listed, announced, and the form emptied for the next one.
    await vi.waitFor(() => {
      expect(row('bob')?.textContent).toContain('Bob Builder');
      expect(notice()).toContain('Added bob.');
      expect(el().querySelector<HTMLInputElement>('#op-username')!.value).toBe('');
    }, WAIT);
    expect(api.create).toHaveBeenCalledWith({
      username: 'bob',
      displayName: 'Bob Builder',
      role: 'admin',
      password: 'a-long-password',
    });

    type('#op-username', 'OLGA');
    type('#op-display', 'Another Olga');
    type('#op-password', 'a-long-password');
    button('Add operator').click();
    await vi.waitFor(
      () =>
        expect(el().querySelector('form .error')?.textContent).toContain(
          'An operator named "OLGA" already exists.',
        ),
      WAIT,
    );
  });

  it('disables and enables an operator, changes a role, and sets a new password', async () => {
    button('Disable', row('olga')).click();
    await vi.waitFor(() => expect(row('olga').textContent).toContain('Disabled'), WAIT);
    expect(api.update).toHaveBeenLastCalledWith('o1', { disabled: true });
    button('Enable', row('olga')).click();
    await vi.waitFor(() => expect(row('olga').textContent).toContain('Active'), WAIT);
    expect(api.update).toHaveBeenLastCalledWith('o1', { disabled: false });

    const select = row('olga').querySelector<HTMLSelectElement>('select')!;
    select.value = 'admin';
    select.dispatchEvent(new Event('change'));
    await vi.waitFor(() => expect(notice()).toContain('olga is now an admin.'), WAIT);
    expect(api.update).toHaveBeenLastCalledWith('o1', { role: 'admin' });

    button('Reset password', row('olga')).click();
    await fixture.whenStable();
    type('#reset-o1', 'short');
    button('Set password').click();
    // Refused in the form: the length hint turns bad and nothing is sent.
    await vi.waitFor(() => expect(el().querySelector('.reset .hint')!.classList).toContain('bad'), WAIT);
    expect(api.update).not.toHaveBeenCalledWith('o1', { password: 'short' });
    type('#reset-o1', 'another-long-password');
    button('Set password').click();
    // A set password closes the row's form.
    await vi.waitFor(() => expect(el().querySelector('#reset-o1')).toBeNull(), WAIT);
    expect(api.update).toHaveBeenLastCalledWith('o1', { password: 'another-long-password' });
  });

  it('puts a role back and says why when the API refuses the change', async () => {
    // Xena is the only enabled admin (Olga's admin account is disabled).
    rows = [
      { ...root, role: 'operator' },
      { ...olga, role: 'admin', disabled: true },
      {
        id: 'x',
        username: 'xena',
        displayName: 'Xena',
        role: 'admin',
        disabled: false,
        language: 'en',
        createdAt: at,
      },
    ];
    fixture.destroy();
    fixture = TestBed.createComponent(OperatorsPage);
    await vi.waitFor(() => expect(row('xena')).toBeDefined(), WAIT);
    const select = row('xena').querySelector<HTMLSelectElement>('select')!;
    select.value = 'operator';
    select.dispatchEvent(new Event('change'));
    await vi.waitFor(() => {
      expect(notice()).toBe('xena: At least one enabled admin must remain.');
      expect(select.value).toBe('admin');
    }, WAIT);
  });
});
