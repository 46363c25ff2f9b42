/**
 * Every Redis key and channel name of the turn pipeline, under one deployment prefix
 * (`REDIS_PREFIX`, e.g. `cc`), so deployments and test runs can share a Redis.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  /** BullMQ's `prefix` option: queues live under `<prefix>:bull:<queue>:…`. */
  get bullPrefix(): string {
    return `${this.prefix}:bull`;
  }

  /** Socket.IO Redis adapter's pub/sub key. */
  get socketIoKey(): string {
    return `${this.prefix}:socket.io`;
  }

  /** Stream of a turn's events (entry id = event seq), kept 10 minutes after the turn ends. */
  turnEvents(turnId: string): string {
    return `${this.prefix}:turn:${turnId}:events`;
  }

  /** Set once a terminal event was published; later publishes for the turn are dropped. */
  turnEnded(turnId: string): string {
    return `${this.prefix}:turn:${turnId}:ended`;
  }

  /** Set when an operator asked to stop a turn; the worker checks it at start. */
  turnCancel(turnId: string): string {
    return `${this.prefix}:turn:${turnId}:cancel`;
  }

  /** Pub/sub channel carrying every event of a thread's turns. */
  chatEvents(chatId: string): string {
    return `${this.prefix}:chat:${chatId}:events`;
  }

  /**
   * Pub/sub channel carrying the lifecycle events of every turn (`ACTIVITY_EVENT_TYPES`, as on the
   * thread's channel) to every API instance, for the pages of the turn's owner.
   */
  get turnActivity(): string {
    return `${this.prefix}:turn-activity`;
  }

  /** Pub/sub channel carrying every import status change (`{ operatorId, job: ImportJobView }`) to every API instance. */
  get importEvents(): string {
    return `${this.prefix}:import-events`;
  }

  /** Pub/sub channel carrying cancel requests (message: the turn id) to every worker. */
  get cancelChannel(): string {
    return `${this.prefix}:turn-cancel`;
  }
}
