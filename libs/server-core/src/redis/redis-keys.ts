/**
 * Every key's start: `REDIS_PREFIX` as a hash tag, so on Redis Cluster all keys share a slot and
 * multi-key scripts (BullMQ's) run.
 */
export const redisRoot = (prefix: string): string => `{${prefix}}`;

/**
 * Every Redis key and channel name of the turn pipeline, under one deployment prefix
 * (`REDIS_PREFIX`, e.g. `cc`: keys `{cc}:…`), so deployments and test runs can share a Redis.
 */
export class RedisKeys {
  /** `{<prefix>}`: what every key below starts with (`redisRoot`). */
  readonly root: string;

  constructor(readonly prefix: string) {
    this.root = redisRoot(prefix);
  }

  /** BullMQ's `prefix` option: queues live under `{<prefix>}:bull:<queue>:…`. */
  get bullPrefix(): string {
    return `${this.root}:bull`;
  }

  /** Socket.IO Redis adapter's pub/sub key. */
  get socketIoKey(): string {
    return `${this.root}:socket.io`;
  }

  /** Stream of a turn's events (entry id = event seq), kept 10 minutes after the turn ends. */
  turnEvents(turnId: string): string {
    return `${this.root}:turn:${turnId}:events`;
  }

  /** Set once a terminal event was published; later publishes for the turn are dropped. */
  turnEnded(turnId: string): string {
    return `${this.root}:turn:${turnId}:ended`;
  }

  /** Set when an operator asked to stop a turn; the worker checks it at start. */
  turnCancel(turnId: string): string {
    return `${this.root}:turn:${turnId}:cancel`;
  }

  /** Pub/sub channel carrying every event of a thread's turns. */
  chatEvents(chatId: string): string {
    return `${this.root}:chat:${chatId}:events`;
  }

  /**
   * Pub/sub channel carrying the lifecycle events of every turn (`ACTIVITY_EVENT_TYPES`, as on the
   * thread's channel) to every API instance, for the pages of the turn's owner.
   */
  get turnActivity(): string {
    return `${this.root}:turn-activity`;
  }

  /** Pub/sub channel carrying every import status change (`{ operatorId, job: ImportJobView }`) to every API instance. */
  get importEvents(): string {
    return `${this.root}:import-events`;
  }

  /** Pub/sub channel carrying cancel requests (message: the turn id) to every worker. */
  get cancelChannel(): string {
    return `${this.root}:turn-cancel`;
  }
}
