import damerauLevenshtein from 'damerau-levenshtein';
import {
  GROUP_BY_KEYS,
  REPORT_FORMATS,
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
  type GroupByKey,
  type ReportFormat,
  type Severity,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import data from './vocabulary.data.json';

/**
 * The English question vocabulary. The word tables are data (`vocabulary.data.json`, grouped by
 * concept) so they can be extended without touching the parser; this module types them and
 * checks that every word maps to a value the contracts know.
 */

/** `table`, after checking that each word maps to one of `allowed` (a typo in the data fails at load). */
function wordsTo<T extends string>(table: Record<string, string>, allowed: readonly T[], what: string) {
  for (const [word, value] of Object.entries(table)) {
    if (!(allowed as readonly string[]).includes(value)) {
      throw new Error(`vocabulary.data.json: "${word}" maps to "${value}", not a ${what}`);
    }
  }
  return table as Record<string, T>;
}

/** Words meaning "finding" (the subject of most questions). */
export const FINDING_NOUNS = new Set(data.subjects.finding);
export const REPORT_NOUNS = new Set(data.subjects.report);
export const CWE_NOUNS = new Set(data.subjects.cwe);
/** Words meaning "format" in "which report format has the most …". */
export const FORMAT_NOUNS = new Set(data.subjects.format);

/**
 * Report formats as operators name them (IMPORT-RULES.md format ids): "the Burp Suite reports",
 * "the trivy scans". A format word is a filter on the report's detected format, never on file names.
 */
export const FORMAT_WORDS = wordsTo<ReportFormat>(data.formats, REPORT_FORMATS, 'report format');
/** Severity words (CVSS 3.1 qualitative scale names and common variants) → severity. */
export const SEVERITY_WORDS = wordsTo<Severity>(data.severities, SEVERITIES, 'severity');

/**
 * Verdict words → verdict. `open` counts only after `still` (handled by the parser).
 *
 * Verdict or triage status: "fixed" and "open" name both. A question naming "verdict" or "retest"
 * means the latest retest verdict; one naming "status", "triage", "false positive", "confirmed" or
 * "risk accepted" means the triage status; otherwise "open" ("open findings") is the status and
 * "fixed", "still open", "unfixed" are the verdict. The answer names which one it counted
 * ("verdict fixed", "triage status open").
 */
export const VERDICT_WORDS = wordsTo<VerdictStatus>(data.verdicts, VERDICT_STATUSES, 'verdict');
/** Triage status words (one token each; "false positive" and "risk accepted" are joined by the recogniser). */
export const STATUS_WORDS = wordsTo<TriageStatus>(data.triageStatuses, TRIAGE_STATUSES, 'triage status');
/** Words that make "open"/"fixed" the triage status, and those that make them the verdict. */
export const STATUS_NOUNS = new Set(data.statusNouns);
export const VERDICT_NOUNS = new Set(data.verdictNouns);
/** Words naming what to group by ("by severity", "per scan"). */
export const GROUP_WORDS = wordsTo<GroupByKey>(data.groupBy, GROUP_BY_KEYS, 'group-by key');

export const COUNT_WORDS = new Set(data.intents.count);
export const LIST_WORDS = new Set(data.intents.list);
export const DETAIL_WORDS = new Set(data.intents.detail);
export const TOP_WORDS = new Set(data.intents.top);
export const BREAKDOWN_WORDS = new Set(data.intents.breakdown);
export const OVERVIEW_WORDS = new Set(data.intents.overview);
/** Words asking for a share of a whole: "what percentage of findings are critical?". */
export const SHARE_WORDS = new Set(data.intents.share);
/** Words that make a "most …" question about finding titles ("the most common vulnerability"). */
export const FREQUENCY_WORDS = new Set(data.intents.frequency);
/** Words of operator edits ("re-rated", "were edited"); known, so never corrected to "related" or "rated". */
export const EDIT_WORDS = new Set(data.intents.edit);
/** Verbs asking to change data; the planner (and every tool) only reads. */
export const WRITE_VERBS = new Set(data.intents.write);

export const REFERENCE_WORDS = new Set(data.references.words);
export const ORDINALS: Record<string, number> = data.references.ordinals;
export const NUMBER_WORDS: Record<string, number> = data.references.numbers;

/** Words that negate the part of the question after them ("not info", "excluding low", "non-XSS"). */
export const NEGATION_WORDS = new Set(data.negation.words);
/** Two-word negations: "other than low", "apart from info", "all but info". */
export const NEGATION_PAIRS: string[][] = data.negation.pairs;

/** Words that only make sense as a time constraint ("imported last week", "since March", "in 2023"). */
export const TIME_WORDS = new Set(data.time.words);
/** Verbs of arrival that a time phrase usually hangs on ("imported last week", "added since Monday"). */
export const ARRIVAL_VERBS = new Set(data.time.arrivalVerbs);
/** Words that may precede a time word inside a time phrase ("in the last 7 days", "over the past month"). */
export const TIME_GLUE = new Set(data.time.glue);

/** Function words and question scaffolding: never part of a topic found by position. */
export const STOPWORDS = new Set(data.filler.stopwords);
/**
 * Words a question may contain without changing what is counted (politeness, filler, how the
 * answer should be laid out). Any other word the parser did not understand is treated as a
 * constraint it could not apply.
 */
export const HARMLESS_WORDS = new Set(data.filler.harmless);

/** Common short misspellings the edit-distance pass does not reach (it skips words under five letters). */
const TYPO_MAP: Record<string, string> = data.spelling.typos;
/** Words the edit-distance pass may correct to (structure words of five letters or more). */
const FUZZY_TARGETS = data.spelling.fuzzyTargets;
const FUZZY_SET = new Set(FUZZY_TARGETS);

/**
 * The structure word a possibly misspelled `word` (lower case) stands for: itself when known or
 * short, a `TYPO_MAP` entry, or the closest `FUZZY_TARGETS` word within one edit (Damerau–Levenshtein:
 * a transposition is one edit) for words of five or more letters, two edits from eight letters
 * when the first letter agrees (so a name such as "coverity" is not read as "severity").
 * Words that are known vocabulary already are never changed.
 */
export function correctWord(word: string, known: (w: string) => boolean): string {
  if (TYPO_MAP[word]) return TYPO_MAP[word];
  if (word.length < 5 || FUZZY_SET.has(word) || known(word) || /[^a-z-]/.test(word)) return word;
  const limit = word.length >= 8 ? 2 : 1;
  let best: string | undefined;
  let bestSteps = limit + 1;
  for (const target of FUZZY_TARGETS) {
    if (Math.abs(target.length - word.length) > limit) continue;
    const steps = damerauLevenshtein(word, target).steps;
    if (steps > 1 && target[0] !== word[0]) continue;
    if (steps < bestSteps) {
      best = target;
      bestSteps = steps;
    }
  }
  return best ?? word;
}
