import { beforeEach, describe, expect, it } from 'vitest';
import { clearDrafts, loadDraft, saveDraft } from './drafts';

describe('drafts', () => {
  beforeEach(() => sessionStorage.clear());

  it('keeps one draft per thread in sessionStorage; blank text removes it', () => {
    saveDraft('a', 'How many critical findings?');
    saveDraft('b', 'Which report?');
    expect(loadDraft('a')).toBe('How many critical findings?');
    expect(loadDraft('b')).toBe('Which report?');
    expect(loadDraft('c')).toBe('');
    saveDraft('a', '   ');
    expect(loadDraft('a')).toBe('');
    expect(sessionStorage.length).toBe(1);
  });

  it('signing out forgets every draft and nothing else stored in the tab', () => {
    saveDraft('a', 'x');
    saveDraft('b', 'y');
    sessionStorage.setItem('other', 'kept');
    clearDrafts();
    expect([loadDraft('a'), loadDraft('b')]).toEqual(['', '']);
    expect(sessionStorage.getItem('other')).toBe('kept');
  });
});
