import type { z } from 'zod';
import type { runImportJobDataSchema, runTurnJobDataSchema } from './job-data.schema';

/**
 * BullMQ queue and job names. Renaming one strands jobs already waiting in Redis under the old
 * name: drain the queue first.
 */
export const CHAT_TURNS_QUEUE = 'chat-turns';

export const JobNames = {
  runTurn: 'run-turn',
} as const;

/** Job data carries ids, not state (see `runTurnJobDataSchema`). */
export type RunTurnJobData = z.output<typeof runTurnJobDataSchema>;

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

/** See `runImportJobDataSchema`. */
export type RunImportJobData = z.output<typeof runImportJobDataSchema>;

/** Webhook work: `turn-ended` (job id = turn id) stores deliveries; `deliver` (id = delivery) sends one. */
export const WEBHOOKS_QUEUE = 'webhooks';

export const WebhookJobNames = {
  turnEnded: 'turn-ended',
  deliver: 'deliver',
} as const;
