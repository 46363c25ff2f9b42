import type { ComputedScope, FindingFilter, GroupByKey } from '@corpus-chat/contracts';
import type { LastAnswerState } from '../history';
import type { ComparisonPlan } from './scan-comparison';

/** A part of the question the planner read but cannot apply to a count (the answer names it). */
export interface Unapplied {
  /** The operator's words. */
  text: string;
  /**
   * Why: no tool filters by `time`; a `negation` of nothing it knows; parts no one count combines
   * (`combination`); a ranking from the bottom (`order`); words it does not know (`unknown`).
   */
  reason: 'time' | 'negation' | 'combination' | 'order' | 'unknown';
  /** Unknown words that could be a topic to search for ("how many findings does jQuery have?"). */
  topicLike?: boolean;
}

/** A report named by part of its file name ("the juice shop report"), resolved against `list_all_reports`. */
export interface ReportHint {
  text: string;
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

/** What `parseQuestion` decided a question asks; the planner runner answers it. */
export type PlannedQuestion =
  | { kind: 'count_reports' | 'list_reports' | 'overview' | 'no_previous' }
  | ({ kind: 'count_findings'; list: boolean } & Counting)
  /** `among`: after a list, "which of them has the most …" ranks only these group keys (or file names). */
  | ({ kind: 'top'; groupBy: 'report' | 'cwe' | 'format' | 'title'; n: number; among?: string[] } & Counting)
  /**
   * "What percentage of findings are critical?": the part (`filter`) of a whole. `attached`: the
   * scopes the whole must keep; `hintInWhole`: the report named by part of its name scopes the whole.
   */
  | ({
      kind: 'share';
      whole: FindingFilter;
      attached: (keyof FindingFilter)[];
      hintInWhole: boolean;
    } & Counting)
  | ({ kind: 'breakdown'; groupBy: GroupByKey } & Counting)
  /** "How many reports have critical findings?" */
  | ({ kind: 'reports_with' } & Counting)
  | { kind: 'detail'; id: number }
  /** "Show the first one": a position (-1 = last) in the previous answer's findings or groups. */
  | { kind: 'detail_ref'; position: number }
  | { kind: 'group_ref'; position: number }
  /** A question with parts the planner cannot apply: answered without a number. */
  | { kind: 'unsupported'; parts: Unapplied[]; understood: PlannedQuestion }
  | { kind: 'out_of_scope'; reason: 'write' | 'unknown' }
  | { kind: 'too_long'; length: number }
  | ComparisonPlan;

/** A plan that counts findings (and so may carry a scope, a report hint and follow-up state). */
export type CountingPlan = Extract<PlannedQuestion, { filter: FindingFilter }>;

/** What the previous answer of the thread left for follow-ups. */
export type PreviousAnswer = LastAnswerState;
