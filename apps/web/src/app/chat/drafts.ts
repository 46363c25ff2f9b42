/**
 * Unsent questions, one per thread, in sessionStorage: a draft survives a reload and a sign-in
 * again after the session expired (same tab), and is gone when the tab closes. Storage that
 * refuses (private mode, quota) only loses the draft.
 */
const KEY_PREFIX = 'cc-draft:';

/** The unsent text of thread `chatId` ('' when none). */
export function loadDraft(chatId: string): string {
  try {
    return sessionStorage.getItem(KEY_PREFIX + chatId) ?? '';
  } catch {
    return '';
  }
}

/** Keeps `text` as thread `chatId`'s draft; blank text removes it. */
export function saveDraft(chatId: string, text: string): void {
  try {
    if (text.trim()) sessionStorage.setItem(KEY_PREFIX + chatId, text);
    else sessionStorage.removeItem(KEY_PREFIX + chatId);
  } catch {
    // Storage refused: the draft lives only as long as the page.
  }
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
