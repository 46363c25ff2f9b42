import { Logger } from '@nestjs/common';
import type { ChatEvent, ChatEventBody } from '@corpus-chat/contracts';
import { isTerminalEvent } from '@corpus-chat/contracts';
import type { Redis } from 'ioredis';
import type { RedisKeys } from '../redis/redis-keys';
import { turnTrace } from './turn-trace';

/** Seconds a turn's event stream is kept after its terminal event (for replay after a reload). */
export const TURN_EVENTS_RETENTION_AFTER_END_S = 600;
/** Seconds a turn's stream is kept while no terminal event came (a turn abandoned by a lost Redis job). */
export const TURN_EVENTS_RETENTION_ACTIVE_S = 24 * 3600;

/**
 * One atomic step: allocate the next seq (INCR), append the event to the turn's stream with
 * entry id `<seq>-0`, PUBLISH it on the thread's channel, and set the expiries: retention while
 * active (24 h) at every event but a text delta, retention after the end at the terminal event.
 * Text deltas (most events of a turn) leave them alone, which saves two of the six commands of
 * their publish; a turn's first event and `turn.started` (after a queue wait of any length) still
 * give it the full active retention. Because the three run
 * inside one script, the order on the channel and in the stream is the seq order and no seq is
 * ever skipped. Once a terminal event went out, the turn is closed and the script returns 0.
 *
 * KEYS: seq counter, stream, ended flag. ARGV: channel, event JSON without seq (an object, so it
 * starts with `{`), '1' when terminal / 'd' for a text delta / '0' otherwise, retention after end
 * (s), retention while active (s).
 */
const PUBLISH_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local seq = redis.call('INCR', KEYS[1])
local event = '{"seq":' .. seq .. ',' .. string.sub(ARGV[2], 2)
redis.call('XADD', KEYS[2], seq .. '-0', 'e', event)
redis.call('PUBLISH', ARGV[1], event)
if ARGV[3] == '1' then
  local ttl = tonumber(ARGV[4])
  redis.call('SET', KEYS[3], '1', 'EX', ttl)
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
elseif ARGV[3] == '0' or seq == 1 then
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
end
return seq
`;

type PublishCommand = (
  seqKey: string,
  streamKey: string,
  endedKey: string,
  channel: string,
  json: string,
  kind: '0' | '1' | 'd',
  retentionAfterEnd: number,
  retentionActive: number,
) => Promise<number>;

/**
 * The turn event bus: ordered, gap-free publishing of `ChatEvent`s and their replay.
 * The worker (and the API, for `turn.queued` and cancels of queued turns) publishes; every API
 * instance subscribes to the thread channels its sockets joined (`TurnEventSubscriber`) and
 * replays a turn's stream for a socket that (re)joins mid-turn.
 */
export class TurnEventBus {
  private readonly logger = new Logger(TurnEventBus.name);
  private readonly publishCommand: PublishCommand;

  /** `redis` is a command connection (not a subscriber); `keys` names every key and channel. */
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    if (!(redis as unknown as Record<string, unknown>)['ccPublishTurnEvent']) {
      redis.defineCommand('ccPublishTurnEvent', { numberOfKeys: 3, lua: PUBLISH_SCRIPT });
    }
    const command = (redis as unknown as Record<string, PublishCommand>)['ccPublishTurnEvent'];
    this.publishCommand = command.bind(redis);
  }

  /**
   * Publishes one event of turn `turnId` in thread `chatId`; seq and `at` (ISO-8601, now) are added
   * here. Resolves with the published event, or `null` when the turn already ended (its terminal
   * event went out: later events are dropped, so a late delta can never follow `turn.done`).
   * Rejects when Redis is unreachable.
   */
  async publish(chatId: string, turnId: string, body: ChatEventBody): Promise<ChatEvent | null> {
    const at = new Date().toISOString();
    const json = JSON.stringify({ chatId, turnId, at, ...body });
    turnTrace.mark(turnId, `publish:${body.type}`);
    const seq = await this.publishCommand(
      this.keys.turnSeq(turnId),
      this.keys.turnEvents(turnId),
      this.keys.turnEnded(turnId),
      this.keys.chatEvents(chatId),
      json,
      isTerminalEvent(body) ? '1' : body.type === 'text.delta' ? 'd' : '0',
      TURN_EVENTS_RETENTION_AFTER_END_S,
      TURN_EVENTS_RETENTION_ACTIVE_S,
    );
    turnTrace.mark(turnId, `published:${body.type}`);
    if (!seq) {
      this.logger.debug(`turn ${turnId} already ended; dropped a ${body.type} event`);
      return null;
    }
    return { seq, chatId, turnId, at, ...body } as ChatEvent;
  }

  /** The stored events of a turn with seq > `afterSeq`, in seq order (empty when expired or unknown). */
  async replay(turnId: string, afterSeq = 0): Promise<ChatEvent[]> {
    const from = Math.max(0, Math.floor(afterSeq)) + 1;
    const entries = await this.redis.xrange(this.keys.turnEvents(turnId), `${from}-0`, '+');
    const events: ChatEvent[] = [];
    for (const [, fields] of entries) {
      const i = fields.indexOf('e');
      if (i >= 0 && fields[i + 1]) events.push(JSON.parse(fields[i + 1]) as ChatEvent);
    }
    return events;
  }

  /** The last seq allocated to each turn (0 when none or expired). */
  async lastSeqs(turnIds: readonly string[]): Promise<Map<string, number>> {
    const result = new Map<string, number>();
    if (!turnIds.length) return result;
    const values = await this.redis.mget(...turnIds.map((id) => this.keys.turnSeq(id)));
    turnIds.forEach((id, i) => result.set(id, Number(values[i] ?? 0)));
    return result;
  }

  /**
   * Deletes the seq counters and event streams of turns whose thread was deleted, so their text
   * does not outlive the thread. The `ended` flags stay until they expire: a worker still
   * finishing such a turn must find it closed rather than start a new stream at seq 1.
   * Rejects when Redis is unreachable.
   */
  async forget(turnIds: readonly string[]): Promise<void> {
    if (!turnIds.length) return;
    await this.redis.del(...turnIds.flatMap((id) => [this.keys.turnSeq(id), this.keys.turnEvents(id)]));
  }
}
