import { AUTO_TITLE_CHARS, MAX_MESSAGE_CHARS, TRUNCATION_MARK } from '@corpus-chat/contracts';

/** Drops a trailing lone high surrogate so a cut never splits a character outside the BMP. */
function safeSlice(text: string, end: number): string {
  let cut = Math.max(0, Math.min(end, text.length));
  const code = text.charCodeAt(cut - 1);
  if (cut > 0 && code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut);
}

/**
 * Cuts a message over `max` characters at the last sentence end that fits (else the last space in
 * the second half, else at `max`), appending `TRUNCATION_MARK` within `max`.
 */
export function truncateMessage(
  content: string,
  max = MAX_MESSAGE_CHARS,
): { content: string; truncated: boolean } {
  if (content.length <= max) return { content, truncated: false };
  const suffix = ` ${TRUNCATION_MARK}`;
  const budget = max - suffix.length;
  const head = content.slice(0, budget + 1); // +1: a boundary right at the budget still counts
  let cut = -1;
  for (const m of head.matchAll(/[.!?…]["'”’)\]]*(?=\s)|\n/g)) {
    const end = m.index + m[0].length;
    if (end <= budget) cut = end;
  }
  if (cut < budget / 2) {
    const space = head.slice(0, budget).search(/\s\S*$/);
    cut = space > budget / 2 ? space : budget;
  }
  return { content: safeSlice(content, cut).trimEnd() + suffix, truncated: true };
}

/**
 * A thread's automatic title from its first message: white space collapsed, cut at a word
 * boundary to at most `AUTO_TITLE_CHARS` (60) characters with `…` when cut. Empty text gives ''.
 */
export function autoTitle(content: string, max = AUTO_TITLE_CHARS): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= max) return text;
  const room = safeSlice(text, max - 1);
  const space = room.lastIndexOf(' ');
  const cut = space >= max / 3 ? room.slice(0, space) : room;
  return `${cut.replace(/[\s,;:.-]+$/, '')}…`;
}
