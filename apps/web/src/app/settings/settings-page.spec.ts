import { TestBed, type ComponentFixture } from '@angular/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SettingsTestResult, SettingsView } from '@corpus-chat/contracts';
import { SettingsApi } from './settings-api';
import { SettingsPage } from './settings-page';

describe('SettingsPage Test connection', () => {
  let fixture: ComponentFixture<SettingsPage>;
  let api: { get: ReturnType<typeof vi.fn>; update: ReturnType<typeof vi.fn>; test: ReturnType<typeof vi.fn> };
  const el = (): HTMLElement => fixture.nativeElement as HTMLElement;
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 0));
      await fixture.whenStable();
    }
  };
  const testButton = (): HTMLButtonElement | undefined => Array.from(el().querySelectorAll('button')).find((b) => b.textContent!.includes('Test connection'));
  const choose = async (value: 'builtin' | 'openai'): Promise<void> => {
    el().querySelector<HTMLInputElement>(`input[type="radio"][value="${value}"]`)!.click();
    await settle();
  };

  beforeEach(async () => {
    const saved: SettingsView = { backend: 'builtin', baseUrl: null, model: null, apiKeySet: false, updatedAt: null };
    const failed: SettingsTestResult = {
      ok: false,
      checks: [
        { name: 'models', ok: false, detail: 'Listing the models failed: could not connect to http://127.0.0.1:9/v1: port 9 is blocked for HTTP requests' },
        { name: 'completion', ok: false, detail: "A one-token completion with 'm' failed: could not connect to http://127.0.0.1:9/v1: …" },
      ],
    };
    api = { get: vi.fn(() => Promise.resolve(saved)), update: vi.fn(), test: vi.fn(() => Promise.resolve(failed)) };
    TestBed.configureTestingModule({ providers: [{ provide: SettingsApi, useValue: api }] });
    fixture = TestBed.createComponent(SettingsPage);
    await settle();
  });

  it('offers no Test connection for the built-in planner, and says why', () => {
    expect(testButton()).toBeUndefined();
    expect(el().querySelector('[data-testid="builtin-note"]')?.textContent).toContain('there is no server to test');
  });

  it('tests a server with the values in the form, lists each check, and forgets the result on switching back', async () => {
    await choose('openai');
    expect(el().querySelector('[data-testid="builtin-note"]')).toBeNull();
    const url = el().querySelector<HTMLInputElement>('#s-base-url')!;
    url.value = 'http://127.0.0.1:9/v1';
    url.dispatchEvent(new Event('input'));
    const model = el().querySelector<HTMLInputElement>('#s-model')!;
    model.value = 'm';
    model.dispatchEvent(new Event('input'));
    testButton()!.click();
    await settle();
    expect(api.test).toHaveBeenCalledWith({ backend: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'm' });
    const items = Array.from(el().querySelectorAll('.test li')).map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(items[0]).toContain('Model list');
    expect(items[0]).toContain('could not connect to http://127.0.0.1:9/v1');
    expect(items[1]).toContain('One-token completion');
    expect(el().querySelector('.test h2')?.textContent).toBe('Connection problem');

    await choose('builtin');
    expect(el().querySelector('.test')).toBeNull();
    await choose('openai');
    expect(el().querySelector('.test')).toBeNull();
  });
});
