import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * Long requests of one kind (exports, MCP calls) each hold a pooled connection, so at most
 * `perOperator` per operator and `total` in all run at once; beyond, 429.
 */
export class OperatorSlots {
  private readonly running = new Map<string, number>();
  private all = 0;

  /** `what` names the requests in the refusal, e.g. `exports`. */
  constructor(
    private readonly what: string,
    private readonly perOperator: number,
    private readonly total: number,
  ) {}

  /** Takes a slot for `operatorId` and returns its release (a second call does nothing). */
  take(operatorId: string): () => void {
    const mine = this.running.get(operatorId) ?? 0;
    if (mine >= this.perOperator)
      throw new HttpException(
        `You already have ${mine} ${this.what} running (the limit); wait for one to finish, then try again.`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    if (this.all >= this.total)
      throw new HttpException(
        `The server is running ${this.all} ${this.what} (its limit); try again in a moment.`,
        HttpStatus.TOO_MANY_REQUESTS,
      );
    this.running.set(operatorId, mine + 1);
    this.all++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.all--;
      const left = (this.running.get(operatorId) ?? 1) - 1;
      if (left > 0) this.running.set(operatorId, left);
      else this.running.delete(operatorId);
    };
  }
}
