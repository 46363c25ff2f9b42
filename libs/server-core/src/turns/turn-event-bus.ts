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
 * One atomic step: append the event to the turn's stream with an automatic entry id (its seq),
 * naming the entry before it (`prev`), PUBLISH it with both on the thread's channel, and set the
 * expiries: retention while active at every event but a text delta (and at a turn's first event),
 * retention after the end at the terminal event. A lifecycle event is also published on the
 * activity channel (when given). Once a terminal event went out, the turn is closed and the script
 * returns nil.
 *
 * KEYS: stream, ended flag. ARGV: channel, event JSON without seq and prev (an object, so it starts
 * with `{`), '1' when terminal / 'd' for a text delta / '0' otherwise, retention after end (s),
 * retention while active (s), activity channel or ''. Returns `{seq, prev}`.
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
 * The turn event bus: ordered publishing of `ChatEvent`s and their replay.
 * The worker (and the API, for `turn.queued` and cancels of queued turns) publishes; every API
 * instance subscribes to the thread channels its sockets joined (`TurnEventSubscriber`) and
 * replays a turn's stream for a socket that (re)joins mid-turn.
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
   * Publishes one event of turn `turnId` in thread `chatId`; seq, prev and `at` (ISO-8601, now) are
   * added here. Resolves with the published event, or `null` when the turn already ended (its
   * terminal event went out: later events are dropped, so a late delta can never follow
   * `turn.done`). Rejects when Redis is unreachable.
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

  /**
   * Deletes the event streams of turns whose thread was deleted, so their text does not outlive
   * the thread. The `ended` flags stay until they expire: a worker still finishing such a turn
   * must find it closed rather than start a new stream.
   * Rejects when Redis is unreachable.
   */
  async forget(turnIds: readonly string[]): Promise<void> {
    if (!turnIds.length) return;
    await this.redis.del(...turnIds.map((id) => this.keys.turnEvents(id)));
  }
}
