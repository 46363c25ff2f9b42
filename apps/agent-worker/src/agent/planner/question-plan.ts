import type { ComputedScope, FindingFilter, GroupByKey, ListedGroups } from '@corpus-chat/contracts';
import type { ComparisonPlan } from './scan-comparison';

/**
 * What `parseQuestion` (`question-parser.ts`) returns: the plan of a question, and the parts it
 * read but cannot apply. The planner runner answers a plan; the answer writers word it.
 */

/** A part of the question the planner read but cannot apply to a count. */
export interface Unapplied {
  /** The operator's words. */
  text: string;
  /**
   * `time`: a date or period (no tool filters by date); `negation`: a "not"/"without" whose object
   * the planner did not recognise; `combination`: parts it understands one by one but cannot combine
   * into one exact count; `order`: a ranking from the bottom ("fewest"), which the tools do not
   * give exactly (reports without any match are not in a grouped count); `unknown`: words it did
   * not understand.
   */
  reason: 'time' | 'negation' | 'combination' | 'order' | 'unknown';
  /** Unknown words that could be a topic to search for ("how many findings does jQuery have?"). */
  topicLike?: boolean;
}

/** A report named by part of its file name ("the juice shop report"); resolved against `list_all_reports`. */
export interface ReportHint {
  /** The operator's words naming the report. */
  text: string;
  /** "not in the fortify report": the report's findings are subtracted. */
  negated: boolean;
  /** Read from leftover words after "in"/"from" rather than next to the word "report". */
  loose: boolean;
}

/** What a count is over: the tool filter plus what the planner computes from several exact counts. */
export interface PlannedScope {
  filter: FindingFilter;
  scope?: ComputedScope;
}

/** The parts shared by every plan that counts findings. */
export interface Counting extends PlannedScope {
  followUp: boolean;
  /** For a follow-up: the previous answer's scope, and the parts this question named itself. */
  previous?: PlannedScope;
  asked?: PlannedScope;
  reportHint?: ReportHint;
  /** A word the vocabulary does not know, searched as the findings' text (the answer says so). */
  searched?: string;
}

/** What the planner decided a question asks. */
export type PlannedQuestion =
  | { kind: 'count_reports' }
  | { kind: 'list_reports' }
  | { kind: 'overview' }
  /** "How many findings …": a search with the filter (total exact, first rows shown). */
  | ({ kind: 'count_findings'; list: boolean } & Counting)
  /** "Which report has the most …", "top N reports / CWEs by …", "most common vulnerability" (title), "which format …". */
  | ({
      kind: 'top';
      groupBy: 'report' | 'cwe' | 'format' | 'title';
      n: number;
      /** "Which of them has the most …" after a list: only these group keys (or report file names) rank. */
      among?: string[];
    } & Counting)
  /**
   * "What percentage of findings are critical?": the part's count (`filter`) and the whole's.
   * `attached`: the scopes the question put on the whole, which it must keep; `hintInWhole`: the
   * report named by part of its name scopes the whole too (else it is the asked part).
   */
  | ({
      kind: 'share';
      whole: FindingFilter;
      attached: (keyof FindingFilter)[];
      hintInWhole: boolean;
    } & Counting)
  /** "Breakdown of findings by severity / CWE / verdict / report". */
  | ({ kind: 'breakdown'; groupBy: GroupByKey } & Counting)
  /** "How many reports have critical findings?" */
  | ({ kind: 'reports_with' } & Counting)
  | { kind: 'detail'; id: number }
  /** "Show the first one": a position in the previous answer's finding ids (-1 = last). */
  | { kind: 'detail_ref'; position: number }
  /** "Show the second one" after a ranking: a position in the groups it listed (-1 = last). */
  | { kind: 'group_ref'; position: number }
  /** A follow-up with nothing earlier in the thread to refer to. */
  | { kind: 'no_previous' }
  /** A question with parts the planner cannot apply: answered without a number. */
  | { kind: 'unsupported'; parts: Unapplied[]; understood: PlannedQuestion }
  | { kind: 'out_of_scope'; reason: 'write' | 'unknown' }
  /** Longer than `PLANNER_MAX_QUESTION_CHARS` (`question-parser.ts`): not read at all. */
  | { kind: 'too_long'; length: number }
  /** "What is new in B compared with A?": two scans of one target compared (see `scan-comparison.ts`). */
  | ComparisonPlan;

/** A plan that counts findings (and so may carry a scope, a report hint and follow-up state). */
export type CountingPlan = Extract<PlannedQuestion, { filter: FindingFilter }>;

/** What the previous answer of the thread left for follow-ups. */
export interface PreviousAnswer {
  lastFilter?: FindingFilter;
  lastFindingIds?: number[];
  lastScope?: ComputedScope;
  lastGroups?: ListedGroups;
}
