import { z } from 'zod';
import { OPERATOR_LANGUAGES } from '../operators/operator-roles';

/**
 * Each job's data, declared once: the API enqueues `z.input`, the worker validates before acting.
 * Apart from `jobs.ts` so the web bundle stays without zod.
 */
const id = z.guid({ error: 'must be a UUID' });

/** `run-turn`. Ids, not state: the worker loads the thread and re-checks ownership. */
export const runTurnJobDataSchema = z.object({
  turnId: id,
  chatId: id,
  ownerId: id,
  /** The operator's message that started this turn. */
  userMessageId: id,
  /** The operator's language when the question was asked (answers are written in it); absent in older jobs: `en`. */
  language: z.enum(OPERATOR_LANGUAGES).optional(),
  /** W3C Trace Context of the request that queued the turn (when tracing is on). */
  traceparent: z.string().max(128).optional(),
});

/** `run-import`. The worker loads the import's row (file path, operator) and re-checks its status. */
export const runImportJobDataSchema = z.object({ importId: id, traceparent: z.string().max(128).optional() });

/** `turn-ended`: the worker reads the stored outcome and the thread, then queues the deliveries. */
export const turnEndedJobDataSchema = z.object({ turnId: id });

/** `deliver`: the worker loads the delivery (payload, endpoint URL and secret) and sends it once. */
export const deliverWebhookJobDataSchema = z.object({ deliveryId: id });
