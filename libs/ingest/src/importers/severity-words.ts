import type { Severity } from '@corpus-chat/contracts';

const WORDS: Record<string, Severity> = {
  critical: 'critical',
  high: 'high',
  medium: 'medium',
  low: 'low',
  info: 'info',
  information: 'info',
  informational: 'info',
  none: 'info',
  log: 'info',
};

/** IMPORT-RULES severity words, case-insensitive; null for anything else (counted as unmapped). */
export function severityWord(value: unknown): Severity | null {
  if (typeof value !== 'string') return null;
  return WORDS[value.trim().toLowerCase()] ?? null;
}

/** True for the severity some tools give a finding they mark as a false positive (Burp, OpenVAS). */
export function isFalsePositiveWord(value: unknown): boolean {
  return typeof value === 'string' && value.trim().toLowerCase() === 'false positive';
}
