import type { DataSource } from 'typeorm';
import { readModelSettings } from '../settings/settings.queries';
import { GenerateSql, SQL_EXAMPLE as X } from '../sql/generate-sql';

/** The model name stored with the built-in planner's answers. */
const PLANNER_MODEL = 'builtin';
/** Recent turns whose median duration estimates a queued turn's wait. */
const RECENT_TURNS = 20;

/** One of an operator's queued or running turns. */
export interface ActiveTurnRow {
  turnId: string;
  chatId: string;
  title: string;
  status: 'queued' | 'running';
  queuePosition: number;
  createdAt: Date;
  startedAt: Date | null;
}

/** What a queued turn's start is estimated from (see `estimateStartMs`). */
export interface QueueTiming {
  /** The model new turns run on (the current setting). */
  model: string;
  /** The median duration of the last completed turns on that model; null without any. */
  typicalMs: number | null;
  /** How long each running turn (of every operator) has run. */
  runningElapsedMs: number[];
}

/**
 * Milliseconds until the queued turn at `position` (1 = next) is expected to start: every turn
 * running now is one lane, free once it has run `typicalMs`; each turn ahead in the queue then
 * takes the lane that frees first for `typicalMs` more.
 */
export function estimateStartMs(
  position: number,
  runningElapsedMs: readonly number[],
  typicalMs: number,
): number {
  const lanes = runningElapsedMs.length ? runningElapsedMs.map((e) => Math.max(0, typicalMs - e)) : [0];
  for (let ahead = 1; ahead < position; ahead++) {
    lanes.sort((a, b) => a - b);
    lanes[0]! += typicalMs;
  }
  return Math.min(...lanes);
}

/**
 * What an operator's pages show of turns outside the open thread: when each thread was last seen
 * (`chat_reads`), the operator's queued and running turns, and what their waits are estimated from.
 */
export class TurnActivityQueries {
  constructor(private readonly db: DataSource) {}

  /** Marks thread `chatId` of `ownerId` seen now; false when it is not the operator's. */
  @GenerateSql({ params: [X.operatorId, X.chatId] })
  async markSeen(ownerId: string, chatId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `INSERT INTO chat_reads (operator_id, chat_id, seen_at)
       SELECT owner_id, id, now() FROM chat_sessions WHERE id = $1 AND owner_id = $2
       ON CONFLICT (operator_id, chat_id) DO UPDATE SET seen_at = excluded.seen_at
       RETURNING chat_id`,
      [chatId, ownerId],
    );
    return rows.length > 0;
  }

  /** The owner of thread `chatId`, or null when it does not exist. */
  @GenerateSql({ params: [X.chatId] })
  async ownerOf(chatId: string): Promise<string | null> {
    const rows: { owner_id: string }[] = await this.db.query(
      `SELECT owner_id FROM chat_sessions WHERE id = $1`,
      [chatId],
    );
    return rows[0]?.owner_id ?? null;
  }

  /** The operator's queued and running turns, oldest first. */
  @GenerateSql({ params: [X.operatorId] })
  async activeTurns(ownerId: string): Promise<ActiveTurnRow[]> {
    return this.db.query(
      `SELECT t.id AS "turnId", t.chat_id AS "chatId", s.title, t.status,
              t.queue_position AS "queuePosition", t.created_at AS "createdAt", t.started_at AS "startedAt"
         FROM chat_turns t JOIN chat_sessions s ON s.id = t.chat_id
        WHERE s.owner_id = $1 AND t.status IN ('queued', 'running')
        ORDER BY t.created_at, t.id`,
      [ownerId],
    );
  }

  /** The first line of an answer with text (at most 200 characters), or null. */
  @GenerateSql({ params: [X.missingId] })
  async answerFirstLine(messageId: string): Promise<string | null> {
    const rows: { head: string }[] = await this.db.query(
      `SELECT left(content, 2000) AS head FROM chat_messages WHERE id = $1`,
      [messageId],
    );
    const line = rows[0]?.head
      .split('\n')
      .find((l) => l.trim())
      ?.trim();
    return line ? line.slice(0, 200) : null;
  }

  /** The current model, the median duration of its last completed turns, and the running turns' ages. */
  @GenerateSql({ params: [] })
  async queueTiming(): Promise<QueueTiming> {
    const settings = await readModelSettings(this.db);
    const model = settings.backend === 'openai' ? (settings.model ?? '') : PLANNER_MODEL;
    const [typical]: { ms: number | null }[] = await this.db.query(
      `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM (
         SELECT extract(epoch FROM t.finished_at - t.started_at) * 1000 AS ms
           FROM chat_turns t JOIN chat_messages m ON m.turn_id = t.id AND m.role = 'assistant'
          WHERE t.status = 'complete' AND t.started_at IS NOT NULL AND m.metadata->>'model' = $1
          ORDER BY t.finished_at DESC
          LIMIT ${RECENT_TURNS}) recent`,
      [model],
    );
    const running: { ms: number }[] = await this.db.query(
      `SELECT extract(epoch FROM now() - started_at) * 1000 AS ms FROM chat_turns WHERE status = 'running'`,
    );
    return {
      model,
      typicalMs: typical?.ms === null || typical?.ms === undefined ? null : Number(typical.ms),
      runningElapsedMs: running.map((r) => Number(r.ms)),
    };
  }
}
