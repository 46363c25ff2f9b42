import { Logger } from '@nestjs/common';
import type { ChatEvent, ChatEventBody } from '@corpus-chat/contracts';
import { ACTIVITY_EVENT_TYPES, isTerminalEvent, NO_SEQ } from '@corpus-chat/contracts';
import type { RedisClient } from '../redis/redis-connection';
import type { RedisKeys } from '../redis/redis-keys';
import { turnTrace } from './turn-trace';

/** Seconds a turn's event stream is kept after its terminal event (for replay after a reload). */
export const TURN_EVENTS_RETENTION_AFTER_END_S = 600;
/** Seconds a turn's stream is kept while no terminal event came (a turn abandoned by a lost Redis job). */
export const TURN_EVENTS_RETENTION_ACTIVE_S = 24 * 3600;

/**
 * Atomically: XADD the event (its seq), PUBLISH it with `prev`, set retention expiries, also
 * publish lifecycle events on the activity channel; nil once the terminal event went out.
 * KEYS: stream, ended flag. ARGV: channel, event JSON, '1' terminal / 'd' delta / '0', retention
 * after end (s), retention while active (s), activity channel or ''.
 */
const PUBLISH_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return false end
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1]
local prev = last and last[1] or '${NO_SEQ}'
local body = '{"prev":"' .. prev .. '",' .. string.sub(ARGV[2], 2)
local seq = redis.call('XADD', KEYS[1], '*', 'e', body)
local message = '{"seq":"' .. seq .. '",' .. string.sub(body, 2)
redis.call('PUBLISH', ARGV[1], message)
if ARGV[6] ~= '' then redis.call('PUBLISH', ARGV[6], message) end
if ARGV[3] == '1' then
  redis.call('SET', KEYS[2], '1', 'EX', ARGV[4])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
elseif ARGV[3] == '0' or not last then
  redis.call('EXPIRE', KEYS[1], ARGV[5])
end
return {seq, prev}
`;

type PublishCommand = (
  streamKey: string,
  endedKey: string,
  channel: string,
  json: string,
  kind: '0' | '1' | 'd',
  retentionAfterEnd: number,
  retentionActive: number,
  activityChannel: string,
) => Promise<[string, string] | null>;

/**
 * Ordered publishing of `ChatEvent`s and their replay for sockets that (re)join mid-turn.
 */
export class TurnEventBus {
  private readonly logger = new Logger(TurnEventBus.name);
  private readonly publishCommand: PublishCommand;

  /** `redis` is a command connection (not a subscriber); `keys` names every key and channel. */
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {
    if (!(redis as unknown as Record<string, unknown>)['ccPublishTurnEvent']) {
      redis.defineCommand('ccPublishTurnEvent', { numberOfKeys: 2, lua: PUBLISH_SCRIPT });
    }
    const command = (redis as unknown as Record<string, PublishCommand>)['ccPublishTurnEvent'];
    this.publishCommand = command.bind(redis);
  }

  /**
   * Publishes one event of turn `turnId` (seq, prev and `at` added here); null when the turn's
   * terminal event already went out, so no delta follows `turn.done`.
   */
  async publish(chatId: string, turnId: string, body: ChatEventBody): Promise<ChatEvent | null> {
    const at = new Date().toISOString();
    const json = JSON.stringify({ chatId, turnId, at, ...body });
    turnTrace.mark(turnId, `publish:${body.type}`);
    const result = await this.publishCommand(
      this.keys.turnEvents(turnId),
      this.keys.turnEnded(turnId),
      this.keys.chatEvents(chatId),
      json,
      isTerminalEvent(body) ? '1' : body.type === 'text.delta' ? 'd' : '0',
      TURN_EVENTS_RETENTION_AFTER_END_S,
      TURN_EVENTS_RETENTION_ACTIVE_S,
      ACTIVITY_EVENT_TYPES.includes(body.type) ? this.keys.turnActivity : '',
    );
    turnTrace.mark(turnId, `published:${body.type}`);
    if (!result) {
      this.logger.debug(`turn ${turnId} already ended; dropped a ${body.type} event`);
      return null;
    }
    const [seq, prev] = result;
    return { seq, prev, chatId, turnId, at, ...body } as ChatEvent;
  }

  /** The stored events of a turn after seq `afterSeq` (all without it), in order; empty when expired. */
  async replay(turnId: string, afterSeq?: string): Promise<ChatEvent[]> {
    const from = afterSeq ? `(${afterSeq}` : '-';
    const entries = await this.redis.xrange(this.keys.turnEvents(turnId), from, '+');
    return entries.flatMap(([seq, fields]) =>
      fields[0] === 'e' && fields[1] ? [{ seq, ...JSON.parse(fields[1]) } as ChatEvent] : [],
    );
  }

  /** Deletes the streams of deleted threads' turns; `ended` flags stay so a late worker finds them closed. */
  async forget(turnIds: readonly string[]): Promise<void> {
    if (!turnIds.length) return;
    await this.redis.del(...turnIds.map((id) => this.keys.turnEvents(id)));
  }
}
