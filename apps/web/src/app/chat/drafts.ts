import { readStored, writeStored } from '../shared/storage';

/**
 * Unsent questions, one per thread, in sessionStorage: a draft survives a reload and a sign-in
 * again after the session expired (same tab), and is gone when the tab closes. Storage that
 * refuses (private mode, quota) only loses the draft.
 */
const KEY_PREFIX = 'cc-draft:';
const session = (): Storage => sessionStorage;

/** The unsent text of thread `chatId` ('' when none). */
export function loadDraft(chatId: string): string {
  return readStored(KEY_PREFIX + chatId, session) ?? '';
}

/** Keeps `text` as thread `chatId`'s draft; blank text removes it. */
export function saveDraft(chatId: string, text: string): void {
  writeStored(KEY_PREFIX + chatId, text.trim() ? text : null, session);
}

/** Forgets every thread's draft (on signing out, so the next person at this browser sees none). */
export function clearDrafts(): void {
  try {
    for (const key of Object.keys(sessionStorage))
      if (key.startsWith(KEY_PREFIX)) sessionStorage.removeItem(key);
  } catch {
    // Nothing stored.
  }
}
