import damerauLevenshtein from 'damerau-levenshtein';
import { WEAKNESS_CLASSES, namedWeaknessClasses } from '@corpus-chat/corpus-queries';
import { nearest } from './vocabulary';

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
