import damerauLevenshtein from 'damerau-levenshtein';
import { WEAKNESS_CLASSES, namedWeaknessClasses } from '@corpus-chat/corpus-queries';
import {
  GROUP_BY_KEYS,
  REPORT_FORMATS,
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
} from '@corpus-chat/contracts';
import data from './vocabulary.data.json';

/** `table`, after checking that each word maps to one of `allowed` (a typo in the data fails at load). */
function wordsTo<T extends string>(table: Record<string, string>, allowed: readonly T[], what: string) {
  const bad = Object.entries(table).find(([, value]) => !(allowed as readonly string[]).includes(value));
  if (bad) throw new Error(`vocabulary.data.json: "${bad[0]}" maps to "${bad[1]}", not a ${what}`);
  return own(table) as Record<string, T>;
}

/** A copy without a prototype, so `w in table` and `table[w]` never see `constructor` and the like. */
const own = <T>(table: Record<string, T>): Record<string, T> => Object.assign(Object.create(null), table);

const sets = <T extends Record<string, string[]>>(lists: T) =>
  Object.fromEntries(Object.entries(lists).map(([k, v]) => [k, new Set(v)])) as {
    [K in keyof T]: Set<string>;
  };

/**
 * The question vocabulary, kept as data (`vocabulary.data.json`) so it grows without touching the
 * grammar: word classes, word → value tables checked against the contracts, multi-word sequences.
 */
export const V = {
  ...sets(data.classes),
  formats: wordsTo(data.formats, REPORT_FORMATS, 'report format'),
  severities: wordsTo(data.severities, SEVERITIES, 'severity'),
  verdicts: wordsTo(data.verdicts, VERDICT_STATUSES, 'verdict'),
  statuses: wordsTo(data.triageStatuses, TRIAGE_STATUSES, 'triage status'),
  groupBy: wordsTo(data.groupBy, GROUP_BY_KEYS, 'group-by key'),
  ordinals: own(data.ordinals as Record<string, number>),
  numbers: own(data.numbers as Record<string, number>),
  ...data.sequences,
  comparison: sets(data.comparison),
};

/** Every word of the given classes and tables (a table's own keys: never `constructor` and the like). */
export const union = (...xs: (Set<string> | Record<string, unknown>)[]): Set<string> =>
  new Set(xs.flatMap((x) => (x instanceof Set ? [...x] : Object.keys(x))));

const TYPO_MAP: Record<string, string> = own(data.spelling.typos);

/**
 * The structure word a possibly misspelled `word` stands for: a typo-table entry, or the nearest
 * fuzzy target within one edit from five letters, two from eight when the first letter agrees
 * (so "coverity" is not read as "severity").
 */
export function correctWord(word: string, known: Set<string>): string {
  if (TYPO_MAP[word]) return TYPO_MAP[word];
  // A fuzzy target itself is its own nearest target (no edit).
  if (word.length < 5 || known.has(word) || /[^a-z-]/.test(word)) return word;
  const limit = word.length >= 8 ? 2 : 1;
  const steps = (target: string) => {
    if (Math.abs(target.length - word.length) > limit) return Infinity;
    const n = damerauLevenshtein(word, target).steps;
    return n > limit || (n > 1 && target[0] !== word[0]) ? Infinity : n;
  };
  return nearest(data.spelling.fuzzyTargets, steps) ?? word;
}

/** The first of `targets` with the fewest `steps` (edits), none when every one is `Infinity`. */
function nearest(targets: readonly string[], steps: (target: string) => number): string | undefined {
  const none: [string | undefined, number] = [undefined, Infinity];
  return targets.map((t): [string, number] => [t, steps(t)]).reduce((b, x) => (x[1] < b[1] ? x : b), none)[0];
}

const PHRASES = WEAKNESS_CLASSES.flatMap((c) => [c.name, ...c.aliases]).map((p) => p.toLowerCase());

/**
 * A misspelt weakness class corrected ("sql injecton" → "sql injection"): the class name or alias
 * within one edit (7+ characters) or two (12+); anything else is searched as written.
 */
export function defaultTopicNormaliser(topic: string): string {
  if (namedWeaknessClasses(topic).length) return topic;
  const lower = topic.toLowerCase().trim();
  const plural = lower.endsWith('s') ? lower.slice(0, -1) : lower;
  return (
    nearest(PHRASES, (phrase) => {
      const limit = phrase.length >= 12 ? 2 : phrase.length >= 7 ? 1 : 0;
      if (!limit || Math.abs(phrase.length - plural.length) > limit) return Infinity;
      const n = Math.min(damerauLevenshtein(lower, phrase).steps, damerauLevenshtein(plural, phrase).steps);
      return n <= limit ? n : Infinity;
    }) ?? topic
  );
}
