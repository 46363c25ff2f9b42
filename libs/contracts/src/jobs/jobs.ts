import type { OperatorLanguage } from '../operators/operator-roles';

/**
 * BullMQ queue and job names. Renaming one strands jobs already waiting in Redis under the old
 * name: drain the queue first.
 */
export const CHAT_TURNS_QUEUE = 'chat-turns';

export const JobNames = {
  runTurn: 'run-turn',
} as const;

/** Job data carries ids, not state: the worker loads the thread and re-checks ownership. */
export interface RunTurnJobData {
  turnId: string;
  chatId: string;
  ownerId: string;
  /** The operator's message that started this turn. */
  userMessageId: string;
  /**
   * The operator's language when the question was asked (answers are written in it). Absent in
   * jobs an older API enqueued: read as `en`.
   */
  language?: OperatorLanguage;
}

/** What a finished turn job returns (BullMQ `returnvalue`). */
export interface RunTurnJobResult {
  messageId: string;
  status: 'complete' | 'cancelled' | 'error';
}

/** Queue of uploaded report files waiting to be parsed and stored (one job per file). */
export const IMPORTS_QUEUE = 'imports';

export const ImportJobNames = {
  runImport: 'run-import',
} as const;

/** The worker loads the import's row (file path, operator) and re-checks its status before acting. */
export interface RunImportJobData {
  importId: string;
}
