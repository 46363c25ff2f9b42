import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { ChatRepository, type StartedTurn } from '../chat/chat.repository';

/**
 * Stores a queued turn (and its user message) in the operator's thread with no per-operator limit,
 * as the API's POST does before it adds the job. Resolves with the turn; rejects when the thread
 * is missing, foreign or busy, so a test's setup fails loudly.
 */
export async function storeTestTurn(
  ds: DataSource,
  ownerId: string,
  chatId: string,
  input: {
    turnId?: string;
    content: string;
    clientMessageId?: string | null;
    queuePosition?: number | null;
    autoTitle?: string;
  },
): Promise<StartedTurn> {
  const outcome = await new ChatRepository(ds).tryStartTurn(ownerId, chatId, {
    turnId: input.turnId ?? randomUUID(),
    content: input.content,
    clientMessageId: input.clientMessageId ?? null,
    queuePosition: input.queuePosition === undefined ? 1 : input.queuePosition,
    autoTitle: input.autoTitle ?? input.content.slice(0, 200),
    maxActiveTurns: null,
  });
  if (outcome.kind !== 'started' && outcome.kind !== 'existing') {
    throw new Error(`test turn not stored in chat ${chatId}: ${outcome.kind}`);
  }
  return outcome.turn;
}

/** Marks a queued turn running as attempt `attempt` of `workerId` (what a worker's claim does). */
export async function markTestTurnRunning(
  ds: DataSource,
  turnId: string,
  attempt = 1,
  workerId = 'test-worker',
): Promise<boolean> {
  const rows: unknown[] = await ds.query(
    `WITH marked AS (
       UPDATE chat_turns SET status = 'running', attempt = $2, worker_id = $3, started_at = COALESCE(started_at, now())
        WHERE id = $1 AND status IN ('queued', 'running') RETURNING id
     ) SELECT id FROM marked`,
    [turnId, attempt, workerId],
  );
  return rows.length > 0;
}
