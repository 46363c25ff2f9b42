import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `chat_try_start_turn(...)`: the checks and writes of `ChatRepository.tryStartTurn` in one
 * plpgsql function, called with bound parameters inside the caller's transaction (plpgsql keeps
 * the plans of its statements per session, so nothing is planned again on a pooled connection).
 *
 * In: `p_chat`, `p_owner`, `p_client_message_id` (null: none), `p_turn_id` (id of the new turn),
 * `p_queue_position` (null: 1 + the turns queued now, of every operator), `p_max_active_turns`
 * (null: no limit), `p_user_message_id` (id of the new user message), `p_content` (its text),
 * `p_auto_title` (the thread's title when it was never named).
 *
 * Out (one row): `outcome` and, by outcome,
 * - `not-found`: the thread is missing or not `p_owner`'s;
 * - `existing`: `p_client_message_id` already started `turn_id` in the thread (`user_message_id`,
 *   `queue_position` are that turn's);
 * - `busy`: `turn_id` is queued or running in the thread;
 * - `over-quota`: the operator has `active_turns` (≥ `p_max_active_turns`) turns queued or running;
 * - `started`: the turn (`turn_id`, `queued` at `queue_position`) and the user message
 *   (`user_message_id`) are inserted and the thread touched (`updated_at`, and `p_auto_title` with
 *   `title_source` `auto` when its title is still the default).
 * The checks run in that order after the operator's row is locked (`FOR NO KEY UPDATE`, waiting at
 * most `lock_timeout` 5 s, else 55P03): each statement after the lock takes a fresh snapshot
 * (VOLATILE, READ COMMITTED), so it sees what the operator's previous start committed. Errors
 * (55P03; 23503 when the thread is deleted meanwhile; 22021 for a NUL character; 22001 for a title
 * over 200 characters) abort the caller's transaction: nothing is written.
 */
export class ChatStartTurnFunction1764500600000 implements MigrationInterface {
  name = 'ChatStartTurnFunction1764500600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION chat_try_start_turn(
        p_chat uuid, p_owner uuid, p_client_message_id uuid, p_turn_id uuid, p_queue_position int,
        p_max_active_turns int, p_user_message_id uuid, p_content text, p_auto_title text,
        OUT outcome text, OUT turn_id uuid, OUT user_message_id uuid, OUT queue_position int,
        OUT active_turns int)
      LANGUAGE plpgsql VOLATILE
      SET lock_timeout = '5s'
      AS $$
      BEGIN
        active_turns := 0;
        -- One start per operator at a time, on any API instance.
        PERFORM FROM operators o WHERE o.id = p_owner FOR NO KEY UPDATE;

        IF NOT EXISTS (SELECT FROM chat_sessions s WHERE s.id = p_chat AND s.owner_id = p_owner) THEN
          outcome := 'not-found';
          RETURN;
        END IF;

        IF p_client_message_id IS NOT NULL THEN
          SELECT t.id, m.id, t.queue_position INTO turn_id, user_message_id, queue_position
            FROM chat_turns t JOIN chat_messages m ON m.turn_id = t.id AND m.role = 'user'
           WHERE t.chat_id = p_chat AND t.client_message_id = p_client_message_id;
          IF FOUND THEN
            outcome := 'existing';
            RETURN;
          END IF;
        END IF;

        SELECT t.id INTO turn_id
          FROM chat_turns t
         WHERE t.chat_id = p_chat AND t.status IN ('queued', 'running')
         LIMIT 1;
        IF FOUND THEN
          outcome := 'busy';
          RETURN;
        END IF;

        IF p_max_active_turns IS NOT NULL THEN
          SELECT count(*)::int INTO active_turns
            FROM chat_turns t JOIN chat_sessions s ON s.id = t.chat_id
           WHERE s.owner_id = p_owner AND t.status IN ('queued', 'running');
          IF active_turns >= p_max_active_turns THEN
            outcome := 'over-quota';
            RETURN;
          END IF;
        END IF;

        queue_position := COALESCE(
          p_queue_position,
          (SELECT count(*)::int + 1 FROM chat_turns t WHERE t.status = 'queued'));
        turn_id := p_turn_id;
        user_message_id := p_user_message_id;
        INSERT INTO chat_turns (id, chat_id, client_message_id, status, queue_position)
        VALUES (p_turn_id, p_chat, p_client_message_id, 'queued', chat_try_start_turn.queue_position);
        INSERT INTO chat_messages (id, chat_id, turn_id, role, content, status, metadata)
        VALUES (p_user_message_id, p_chat, p_turn_id, 'user', p_content, 'complete', '{}'::jsonb);
        UPDATE chat_sessions s
           SET updated_at = now(),
               title = CASE WHEN s.title_source = 'default' THEN p_auto_title ELSE s.title END,
               title_source = CASE WHEN s.title_source = 'default' THEN 'auto' ELSE s.title_source END
         WHERE s.id = p_chat;
        outcome := 'started';
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION chat_try_start_turn(uuid, uuid, uuid, uuid, int, int, uuid, text, text)`);
  }
}
