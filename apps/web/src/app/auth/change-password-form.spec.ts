import { HttpErrorResponse } from '@angular/common/http';
import { signal } from '@angular/core';
import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { OperatorView } from '@corpus-chat/contracts';
import { ChatSocket } from '../chat/chat-socket';
import { AuthApi } from './auth-api';
import { AuthStore } from './auth-store';
import { ChangePasswordForm } from './change-password-form';

const root: OperatorView = {
  id: 'a1',
  username: 'root',
  displayName: 'Root',
  role: 'admin',
  disabled: false,
  language: 'en',
  createdAt: '2026-01-01T00:00:00Z',
};

describe('ChangePasswordForm', () => {
  let fixture: ComponentFixture<ChangePasswordForm>;
  let authApi: { me: ReturnType<typeof vi.fn>; changePassword: ReturnType<typeof vi.fn> };
  let socket: { connect: ReturnType<typeof vi.fn>; disconnect: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  /** Bound for the mocked API's answers to reach the page. */
  const WAIT = { timeout: 2000 };
  const message = () => el().querySelector('[data-testid="change-password-message"]')?.textContent?.trim();
  const type = (selector: string, value: string): void => {
    const input = el().querySelector<HTMLInputElement>(selector)!;
    input.value = value;
    input.dispatchEvent(new Event('input'));
  };
  const button = (text: string): HTMLButtonElement =>
    Array.from(el().querySelectorAll('button')).find((b) => b.textContent!.trim() === text)!;

  beforeEach(async () => {
    authApi = { me: vi.fn(() => Promise.resolve(root)), changePassword: vi.fn(() => Promise.resolve(root)) };
    socket = { connect: vi.fn(), disconnect: vi.fn() };
    TestBed.configureTestingModule({
      providers: [
        { provide: AuthApi, useValue: authApi },
        { provide: ChatSocket, useValue: { ...socket, state: signal('connected') } },
      ],
    });
    await TestBed.inject(AuthStore).loadSession();
    fixture = TestBed.createComponent(ChangePasswordForm);
    await fixture.whenStable();
  });

  it('changes my password and reconnects the live connection with the renewed cookie', async () => {
    type('#cp-current', 'old-password-1');
    type('#cp-new', 'new-password-22');
    type('#cp-repeat', 'new-password-2x');
    button('Change password').click();
    await vi.waitFor(() => expect(el().textContent).toContain('The two new passwords differ.'), WAIT);
    expect(authApi.changePassword).not.toHaveBeenCalled();

    type('#cp-repeat', 'new-password-22');
    button('Change password').click();
    await vi.waitFor(() => expect(message()).toContain('Password changed.'), WAIT);
    expect(authApi.changePassword).toHaveBeenCalledWith({
      currentPassword: 'old-password-1',
      newPassword: 'new-password-22',
    });
    expect(socket.disconnect).toHaveBeenCalled();
    expect(socket.connect).toHaveBeenCalled();

    authApi.changePassword.mockRejectedValueOnce(
      new HttpErrorResponse({
        status: 403,
        error: { statusCode: 403, message: 'Your current password is not right.' },
      }),
    );
    type('#cp-current', 'wrong-one');
    type('#cp-new', 'new-password-33');
    type('#cp-repeat', 'new-password-33');
    button('Change password').click();
    await vi.waitFor(() => expect(message()).toBe('Your current password is not right.'), WAIT);
  });
});
