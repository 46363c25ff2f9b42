import type { DataSource } from 'typeorm';
import { GenerateSql } from '../sql/generate-sql';

/** A queued turn whose place in the queue changed (1 = next to start). */
export interface MovedTurn {
  turnId: string;
  chatId: string;
  position: number;
}

/**
 * The queue positions of waiting turns, across every operator: a queued turn's position is 1 + the
 * turns queued before it (by `created_at`, then id), the order in which their jobs were added.
 */
export class QueuePositions {
  constructor(private readonly db: DataSource) {}

  /**
   * Recomputes every queued turn's position, stores those that changed and returns them (empty when
   * none did). One caller at a time across processes (a transaction-level advisory lock; a second
   * caller returns `[]` at once), so each change is returned once. Rejects when Postgres fails.
   */
  @GenerateSql({ params: [] })
  async refresh(): Promise<MovedTurn[]> {
    return this.db.transaction(async (m) => {
      const [{ locked }] = (await m.query(
        `SELECT pg_try_advisory_xact_lock(hashtext('chat_turns.queue_position')) AS locked`,
      )) as { locked: boolean }[];
      if (!locked) return [];
      // `status = 'queued'` again on the updated row: a turn a worker started meanwhile keeps its row.
      return (await m.query(
        `WITH queue AS (
           SELECT id, row_number() OVER (ORDER BY created_at, id)::int AS position
             FROM chat_turns
            WHERE status = 'queued'
         ), moved AS (
           UPDATE chat_turns t
              SET queue_position = q.position
             FROM queue q
            WHERE t.id = q.id AND t.status = 'queued' AND t.queue_position <> q.position
           RETURNING t.id, t.chat_id, t.queue_position
         )
         SELECT id AS "turnId", chat_id AS "chatId", queue_position AS position
           FROM moved
          ORDER BY queue_position`,
      )) as MovedTurn[];
    });
  }
}
