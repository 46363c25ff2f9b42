/**
 * Characters that reorder the text around them (embeddings, overrides, isolates, LRM/RLM, ALM):
 * in a title or a note they can make `exe.txt` read as `txt.exe`, or hide what a line says.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** `text` without bidirectional control characters. */
export const removeBidiControls = (text: string): string => text.replace(BIDI_CONTROLS, '');

/**
 * `value` with every string inside it (objects and arrays, at any depth) stripped of bidi controls,
 * except the values of fields named like a password, which must stay exactly as typed.
 */
export function withoutBidiControls<T>(value: T): T {
  if (typeof value === 'string') return removeBidiControls(value) as T;
  if (Array.isArray(value)) return value.map((v) => withoutBidiControls(v)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, /password/i.test(k) ? v : withoutBidiControls(v)]),
    ) as T;
  }
  return value;
}
