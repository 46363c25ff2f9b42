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
 * A missing seq counter on an event that does not open the turn means Redis lost the turn's
 * earlier events (restarted without persistence, or flushed). Counting again from 1 would reuse
 * seqs that clients already hold and drop as duplicates, so the counter restarts at Redis's clock
 * in microseconds (above any count reached before: a turn publishes far less than one event per
 * microsecond) and the event says `"resync":true`. `%d` keeps such seqs exact (Lua would print
 * them as floats).
 *
 * KEYS: seq counter, stream, ended flag. ARGV: channel, event JSON without seq (an object, so it
 * starts with `{`), '1' when terminal / 'd' for a text delta / '0' otherwise, retention after end
 * (s), retention while active (s), '1' when the event opens the turn. Returns 0 (closed) or
 * `{seq, resync 0|1}`.
 */
const PUBLISH_SCRIPT = `
if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
local resync = 0
if ARGV[6] ~= '1' and redis.call('EXISTS', KEYS[1]) == 0 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[1], string.format('%d', tonumber(now[1]) * 1000000 + tonumber(now[2])))
  resync = 1
end
local seq = redis.call('INCR', KEYS[1])
local id = string.format('%d', seq)
local head = '{"seq":' .. id .. ','
if resync == 1 then head = head .. '"resync":true,' end
local event = head .. string.sub(ARGV[2], 2)
redis.call('XADD', KEYS[2], id .. '-0', 'e', event)
redis.call('PUBLISH', ARGV[1], event)
if ARGV[3] == '1' then
  local ttl = tonumber(ARGV[4])
  redis.call('SET', KEYS[3], '1', 'EX', ttl)
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
elseif ARGV[3] == '0' or seq == 1 or resync == 1 then
  redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[5]))
end
return {seq, resync}
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
  opensTurn: '0' | '1',
) => Promise<0 | [number, 0 | 1]>;

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
   * here. `opensTurn`: this is the turn's first event (the POST's `turn.queued`), numbered 1; any
   * other event that finds no seq counter starts a new, higher run of seqs marked `resync` (see
   * `PUBLISH_SCRIPT`). Resolves with the published event, or `null` when the turn already ended
   * (its terminal event went out: later events are dropped, so a late delta can never follow
   * `turn.done`). Rejects when Redis is unreachable.
   */
  async publish(
    chatId: string,
    turnId: string,
    body: ChatEventBody,
    opts: { opensTurn?: boolean } = {},
  ): Promise<ChatEvent | null> {
    const at = new Date().toISOString();
    const json = JSON.stringify({ chatId, turnId, at, ...body });
    turnTrace.mark(turnId, `publish:${body.type}`);
    const result = await this.publishCommand(
      this.keys.turnSeq(turnId),
      this.keys.turnEvents(turnId),
      this.keys.turnEnded(turnId),
      this.keys.chatEvents(chatId),
      json,
      isTerminalEvent(body) ? '1' : body.type === 'text.delta' ? 'd' : '0',
      TURN_EVENTS_RETENTION_AFTER_END_S,
      TURN_EVENTS_RETENTION_ACTIVE_S,
      opts.opensTurn ? '1' : '0',
    );
    turnTrace.mark(turnId, `published:${body.type}`);
    if (!result) {
      this.logger.debug(`turn ${turnId} already ended; dropped a ${body.type} event`);
      return null;
    }
    const [seq, resync] = result;
    if (resync) {
      this.logger.warn(`turn ${turnId}: Redis had lost its events; seqs go on from ${seq} (resync)`);
      return { seq, resync: true, chatId, turnId, at, ...body } as ChatEvent;
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
