import { decodeHTML } from 'entities';
import type { Severity } from '@corpus-chat/contracts';

/**
 * IMPORT-RULES "every format": tags become spaces, then entities are decoded, so encoded markup
 * stays as the text a report shows (readers treat it as text). NUL dropped, trimmed; '' for non-strings.
 */
export function stripHtml(value: unknown): string {
  if (typeof value !== 'string') return '';
  // NUL cannot be stored in Postgres text; it never carries meaning in a report. A tag ends at the
  // next `<` too, so a run of unclosed tags is scanned once, not once per `<` (quadratic).
  return decodeHTML(value.replace(/<\/?[A-Za-z][^<>]*>|<![^<>]*>/g, ' '))
    .replace(/\0/g, '')
    .trim();
}

/**
 * Characters that reorder the text around them (embeddings, overrides, isolates, LRM/RLM, ALM):
 * in a file name or title they can make `exe.txt` read as `txt.exe`.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;

/** `text` without bidirectional control characters (see {@link BIDI_CONTROLS}). */
export function removeBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/** `stripHtml` that answers null for a missing or blank value. */
export function stripHtmlOrNull(value: unknown): string | null {
  const s = stripHtml(value);
  return s === '' ? null : s;
}

/** The first line of `text`, at most `max` characters. */
export function firstLine(text: string, max = 200): string {
  const line = text.split(/\r?\n/, 1)[0] ?? '';
  return line.slice(0, max);
}

/** The leading CWE id of a number or text (`"CWE-200 Information Exposure"` → 200), else null. */
export function cweId(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(/^\s*(?:cwe\s*[-_:]?\s*)?(\d+)/i.exec(value)?.[1]) : value;
  // Over Postgres' integer range is no CWE either (MITRE's ids have four digits).
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= MAX_CWE_ID ? n : null;
}
const MAX_CWE_ID = 2_147_483_647;

/** CWE ids from a value that is a number, a string or an array of them (see {@link cweId}). */
export function cweIds(value: unknown): number[] {
  const list = Array.isArray(value) ? value : [value];
  const out: number[] = [];
  for (const v of list) {
    const id = cweId(v);
    if (id !== null) out.push(id);
  }
  return out;
}

/** Distinct ids in ascending order. */
export function uniqueSorted(ids: number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Counts severities that did not map (IMPORT-RULES: they become `info`). */
export class SeverityCounter {
  unmapped = 0;

  /** `mapped` when the value mapped, else `info`, counting the miss. */
  take(mapped: Severity | null): Severity {
    if (mapped) return mapped;
    this.unmapped++;
    return 'info';
  }
}

/** A plain JSON object (not an array or null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-blank string, else undefined. */
export function str(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** An array value, treating missing/null as empty; anything else is refused by the caller. */
export function arrayOrEmpty(value: unknown): unknown[] | null {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : null;
}
