import { TestBed } from '@angular/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { THEME_STORAGE_KEY, ThemeStore } from './theme-store';

/** A `matchMedia('(prefers-color-scheme: dark)')` whose answer the test changes like a system setting. */
function systemPreference(dark: boolean) {
  const listeners: ((e: { matches: boolean }) => void)[] = [];
  const media = {
    matches: dark,
    addEventListener: (_: string, l: (e: { matches: boolean }) => void) => listeners.push(l),
  };
  vi.stubGlobal('matchMedia', (query: string) => {
    expect(query).toBe('(prefers-color-scheme: dark)');
    return media;
  });
  return (nowDark: boolean) => {
    media.matches = nowDark;
    for (const l of listeners) l({ matches: nowDark });
  };
}

describe('ThemeStore', () => {
  const applied = () => document.documentElement.dataset['theme'];

  beforeEach(() => {
    localStorage.clear();
    TestBed.resetTestingModule();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('follows the system preference until the operator chooses, then keeps the choice', () => {
    const setSystem = systemPreference(true);
    const theme = TestBed.inject(ThemeStore);
    expect(theme.choice()).toBe('system');
    expect(applied()).toBe('dark');
    setSystem(false);
    expect(applied()).toBe('light');

    theme.choose('dark');
    expect(applied()).toBe('dark');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
    // A system change no longer overrides the operator's choice.
    setSystem(false);
    expect(applied()).toBe('dark');
  });

  it('restores the stored choice on the next visit; "system" forgets it', () => {
    systemPreference(false);
    localStorage.setItem(THEME_STORAGE_KEY, 'dark');
    const theme = TestBed.inject(ThemeStore);
    expect(theme.choice()).toBe('dark');
    expect(applied()).toBe('dark');
    theme.choose('system');
    expect(localStorage.getItem(THEME_STORAGE_KEY)).toBeNull();
    expect(applied()).toBe('light');
  });
});
