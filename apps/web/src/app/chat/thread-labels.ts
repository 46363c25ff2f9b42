/** Shown for a thread that has no title yet. */
export const UNTITLED_THREAD = $localize`:@@chat.newThread:New thread`;
