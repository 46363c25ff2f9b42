import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `chat_try_start_turn(...)`: `ChatRepository.tryStartTurn`'s checks and writes in one plpgsql
 * function (its plans are kept per session), inside the caller's transaction. Parameters: chat,
 * owner, client message id, new turn id, queue position (null: after the queued ones), active-turn
 * limit (null: none), user message id and content, auto title.
 *
 * After locking the operator's row (`lock_timeout` 5 s, else 55P03) it answers one row whose
 * `outcome` is `not-found`, `existing` (that turn), `busy`, `over-quota` (`active_turns`) or
 * `started` (turn and message inserted, thread touched). Each statement takes a fresh snapshot,
 * seeing the operator's previous start. Errors abort the caller's transaction.
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
