import { LOCALE_ID } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OperatorView } from '@corpus-chat/contracts';
import { AuthApi } from '../auth/auth-api';
import { LANGUAGE_STORAGE_KEY, chooseLanguage, startupLanguage } from './language';
import { LanguageStore, PAGE_RELOAD } from './language-store';

const olga = (language: OperatorView['language']): OperatorView => ({
  id: 'o1',
  username: 'olga',
  displayName: 'Olga',
  role: 'operator',
  disabled: false,
  language,
  createdAt: '2026-01-01T00:00:00Z',
});

describe('chooseLanguage', () => {
  it('takes the stored choice first, then a Russian browser, else English', () => {
    expect(chooseLanguage('ru', 'en-GB')).toBe('ru');
    expect(chooseLanguage('en', 'ru-RU')).toBe('en');
    expect(chooseLanguage(null, 'ru-RU')).toBe('ru');
    expect(chooseLanguage(null, 'RU')).toBe('ru');
    expect(chooseLanguage('de', 'de-DE')).toBe('en');
    expect(chooseLanguage(null, undefined)).toBe('en');
  });

  it('reads the cached choice from localStorage', () => {
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'ru');
    expect(startupLanguage()).toBe('ru');
    localStorage.setItem(LANGUAGE_STORAGE_KEY, 'en');
    expect(startupLanguage()).toBe('en');
    localStorage.removeItem(LANGUAGE_STORAGE_KEY);
  });
});

describe('LanguageStore', () => {
  const reload = vi.fn();
  const updateMe = vi.fn();

  function storeIn(locale: string): LanguageStore {
    TestBed.configureTestingModule({
      providers: [
        { provide: LOCALE_ID, useValue: locale },
        { provide: PAGE_RELOAD, useValue: reload },
        { provide: AuthApi, useValue: { updateMe } },
      ],
    });
    return TestBed.inject(LanguageStore);
  }

  beforeEach(() => {
    TestBed.resetTestingModule();
    reload.mockReset();
    updateMe.mockReset();
    localStorage.removeItem(LANGUAGE_STORAGE_KEY);
  });
  afterEach(() => localStorage.removeItem(LANGUAGE_STORAGE_KEY));

  it('stores a new language with the operator, caches it and restarts the page in it', async () => {
    updateMe.mockResolvedValue(olga('ru'));
    const store = storeIn('en-US');
    expect(store.active).toBe('en');
    await store.choose('ru');
    expect(updateMe).toHaveBeenCalledWith({ language: 'ru' });
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('ru');
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('keeps the page and says why when the server refuses the change', async () => {
    updateMe.mockRejectedValue(new Error('language must be one of: en, ru'));
    const store = storeIn('en-US');
    await store.choose('ru');
    expect(store.error()).toBe('language must be one of: en, ru');
    expect(store.busy()).toBe(false);
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBeNull();
    expect(reload).not.toHaveBeenCalled();
  });

  it('after sign-in, restarts once in the operator’s stored language when another one is loaded', () => {
    const store = storeIn('ru');
    expect(store.active).toBe('ru');
    store.follow(olga('ru'));
    expect(reload).not.toHaveBeenCalled();
    store.follow(olga('en'));
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe('en');
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
