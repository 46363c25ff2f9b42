import fs from 'node:fs';
import { testDataDir } from '@corpus-chat/persistence/testing';

/**
 * The script a test puts into a message for the agent-worker's scripted runner
 * (`apps/agent-worker/test/support/scripted-runner.ts` reads it; the worker runs in another
 * process, so the message is the only channel). Keep the two in step.
 */
export interface TurnScript {
  /** Text deltas streamed in order (default `['Hello', ' world', '.']`). */
  deltas?: string[];
  /** Instead: this many generated deltas `w1 `, `w2 `, … */
  deltaCount?: number;
  /** Milliseconds before each delta (default 10). */
  deltaMs?: number;
  /** Emit one `count_findings_by` tool call and result before the text. */
  tool?: boolean;
  /** The first N attempts in one worker process throw a retryable error after their text. */
  failAttempts?: number;
  /** Keep going after the AbortSignal fires. */
  ignoreAbort?: boolean;
  /**
   * Block after `afterDeltas` deltas until the file `gate` exists; `openGate(gate)` releases it.
   * Lets a test act while the turn is provably running instead of racing its delays.
   */
  hold?: { afterDeltas: number; gate: string };
  /**
   * The first run (in any worker process) to get past `afterDeltas` deltas blocks its event loop
   * until the file `gate` exists (`openGate`); later runs go on.
   */
  stall?: { afterDeltas: number; gate: string };
}

/** A fresh gate path (not yet existing) under this run's scratch names, for `TurnScript.hold`. */
export function newGate(): string {
  return testDataDir();
}

/** Releases every turn holding on `gate` (idempotent). */
export function openGate(gate: string): void {
  fs.writeFileSync(gate, '');
}

/** `text [[script {...}]]`: a message carrying its script. */
export function scriptedMessage(script: TurnScript, text = 'scripted question'): string {
  return `${text} [[script ${JSON.stringify(script)}]]`;
}
