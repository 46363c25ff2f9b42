import damerauLevenshtein from 'damerau-levenshtein';
import { WEAKNESS_CLASSES, namedWeaknessClasses } from '@corpus-chat/corpus-queries';
import { nearest } from './vocabulary';

const PHRASES = WEAKNESS_CLASSES.flatMap((c) => [c.name, ...c.aliases]).map((p) => p.toLowerCase());

/**
 * Corrects a misspelt weakness class in a planner topic ("sql injecton" → "sql injection",
 * "cross-site scriptng" → "cross-site scripting"): when the topic names no class as written, and
 * the whole topic is within one edit (Damerau–Levenshtein) of a class name or alias of 7+
 * characters, or two edits of one of 12+, that name is used. Anything else is searched as written
 * (IMPORT-RULES: a text that names no class is full-text searched as is).
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
