import type {
  AssistantMessageMetadata,
  ComputedScope,
  FindingFilter,
  ListedGroups,
} from '@corpus-chat/contracts';
import type { HistoryMessage } from '@corpus-chat/server-core';

/** The follow-up state a previous answer left: its filter and the finding ids it showed. */
export interface LastAnswerState {
  lastFilter?: FindingFilter;
  lastFindingIds?: number[];
  /** What the built-in planner combined on top of `lastFilter` (stored with the same answer). */
  lastScope?: ComputedScope;
  /** The groups the same answer as `lastFindingIds` listed (a ranking), for "show the second one". */
  lastGroups?: ListedGroups;
}

/**
 * The `lastFilter` (with its `lastScope`) and `lastFindingIds` of the most recent assistant message that stored them
 * (normally the previous answer; an errored or cancelled answer without them is skipped).
 */
export function lastAnswerState(history: HistoryMessage[]): LastAnswerState {
  const state: LastAnswerState = {};
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    if (m.role !== 'assistant') continue;
    const meta = m.metadata as Partial<AssistantMessageMetadata>;
    if (!state.lastFilter && meta.lastFilter) {
      state.lastFilter = meta.lastFilter;
      if (meta.lastScope) state.lastScope = meta.lastScope;
    }
    // An answer that stored an empty list (a count that listed no finding) stops the search: "the first one" has nothing to refer to.
    if (!state.lastFindingIds && meta.lastFindingIds) {
      state.lastFindingIds = meta.lastFindingIds;
      if (meta.lastGroups) state.lastGroups = meta.lastGroups;
    }
    if (state.lastFilter && state.lastFindingIds) break;
  }
  return state;
}
