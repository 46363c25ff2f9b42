import { Injectable, Logger } from '@nestjs/common';
import { TURN_HEARTBEAT_MS, TurnLedger } from '@corpus-chat/persistence';
import { TurnAbort } from './turn-errors';

/**
 * The turns running in this process, each with the AbortController that stops it; while any
 * runs, a heartbeat tells the API's sweep a worker is on them.
 */
@Injectable()
export class RunningTurns {
  private readonly logger = new Logger(RunningTurns.name);
  private readonly running = new Map<string, AbortController>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly ledger: TurnLedger) {}

  get size(): number {
    return this.running.size;
  }

  add(turnId: string, controller: AbortController): void {
    this.running.set(turnId, controller);
    this.heartbeat ??= setInterval(() => this.beat(), TURN_HEARTBEAT_MS).unref();
  }

  delete(turnId: string): void {
    this.running.delete(turnId);
  }

  /** Stops `turnId` here, storing nothing: its lock was lost to another worker. Whether it ran. */
  abortLost(turnId: string): boolean {
    const controller = this.running.get(turnId);
    controller?.abort(new TurnAbort('lock-lost'));
    return !!controller;
  }

  /** Aborts every running turn (shutdown timeout): they are handed back to the queue. */
  abortAll(kind: 'shutdown'): void {
    for (const controller of this.running.values()) controller.abort(new TurnAbort(kind));
  }

  /** Tells the API's sweep a worker is on each running turn (even when Redis lost its job). */
  private beat(): void {
    const ids = [...this.running.keys()];
    if (!ids.length) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
      return;
    }
    this.ledger
      .heartbeat(ids)
      .catch((e: Error) => this.logger.warn(`heartbeat of ${ids.length} turn(s) not stored: ${e.message}`));
  }
}
