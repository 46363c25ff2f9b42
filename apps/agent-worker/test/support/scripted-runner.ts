import fs from 'node:fs';
import { type DynamicModule, Module } from '@nestjs/common';
import type { TurnErrorCode } from '@corpus-chat/contracts';
import {
  AGENT_RUNNER,
  type AgentRunner,
  type AgentTurnContext,
  type AgentTurnOutcome,
  AgentTurnError,
  sleep,
} from '@corpus-chat/server-core';

/**
 * What a scripted turn does, written into the user message as `[[script {...json...}]]` so a
 * test drives each turn (and workers in other processes) through the message it posts.
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
  /** The first N attempts of the turn in this process throw a retryable `MODEL_UNAVAILABLE` after their text. */
  failAttempts?: number;
  /** Throw a non-retryable `AgentTurnError` with this code after the text. */
  fatal?: TurnErrorCode;
  /** Keep going after the AbortSignal fires (a runner that does not cooperate). */
  ignoreAbort?: boolean;
  /**
   * Block after `afterDeltas` deltas until the file `gate` exists (the test creates it), so a test
   * can act while the turn is provably running; honours the AbortSignal like the delays.
   */
  hold?: { afterDeltas: number; gate: string };
  /**
   * The first run (in any process) to get past `afterDeltas` deltas blocks its whole event loop (a
   * synchronous wait, as a long task does) until the file `gate` exists; later runs go on.
   */
  stall?: { afterDeltas: number; gate: string };
}

/** Puts a script into a message: `scriptedMessage({ deltaCount: 50 }, 'count findings')`. */
export function scriptedMessage(script: TurnScript, text = 'scripted question'): string {
  return `${text} [[script ${JSON.stringify(script)}]]`;
}

/** Reads the script of a message (defaults when it has none). */
export function parseScript(message: string): TurnScript {
  const m = /\[\[script (\{.*\})\]\]/s.exec(message);
  return m ? (JSON.parse(m[1]) as TurnScript) : {};
}

/** Blocks the event loop until the file `gate` exists, unless another run already stalled on it. */
function stallLoop(gate: string): void {
  try {
    fs.closeSync(fs.openSync(`${gate}.stalled`, 'wx'));
  } catch {
    return;
  }
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!fs.existsSync(gate)) Atomics.wait(cell, 0, 0, 20);
}

/** Resolves once the file at `gate` exists (polled every 20 ms); rejects when `signal` aborts. */
export async function waitForGate(gate: string, signal: AbortSignal): Promise<void> {
  while (!fs.existsSync(gate)) await sleep(20, signal);
}

/** One run of a turn as the scripted runner saw it. */
export interface ScriptedRun {
  turnId: string;
  history: AgentTurnContext['history'];
  userMessage: string;
  /** The answer language the turn carried. */
  language: AgentTurnContext['language'];
  startedAt: number;
  endedAt?: number;
  outcome?: 'done' | 'aborted' | 'failed';
}

/**
 * A test `AgentRunner` following the script in each user message: streams deltas with delays,
 * optionally a tool call, honours the AbortSignal (unless told not to), fails on request.
 * Records every run in `runs`.
 */
export class ScriptedAgentRunner implements AgentRunner {
  readonly runs: ScriptedRun[] = [];
  private readonly attempts = new Map<string, number>();

  /** `onRunEnded`: told about every run once it ended (a worker process reports it over IPC). */
  constructor(private readonly onRunEnded?: (run: ScriptedRun) => void) {}

  async run(ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const script = parseScript(ctx.userMessage);
    const record: ScriptedRun = {
      turnId: ctx.turnId,
      history: ctx.history,
      userMessage: ctx.userMessage,
      language: ctx.language,
      startedAt: Date.now(),
    };
    this.runs.push(record);
    const attempt = (this.attempts.get(ctx.turnId) ?? 0) + 1;
    this.attempts.set(ctx.turnId, attempt);
    const signal = script.ignoreAbort ? new AbortController().signal : ctx.signal;
    const deltas =
      script.deltas ??
      (script.deltaCount
        ? Array.from({ length: script.deltaCount }, (_, i) => `w${i + 1} `)
        : ['Hello', ' world', '.']);
    try {
      const toolCalls = [];
      if (script.tool) {
        const callId = `call-${ctx.turnId.slice(0, 8)}`;
        const args = { groupBy: 'severity' };
        await ctx.emit({ type: 'tool.call', callId, name: 'count_findings_by', args });
        await sleep(script.deltaMs ?? 10, signal);
        await ctx.emit({
          type: 'tool.result',
          callId,
          name: 'count_findings_by',
          ok: true,
          summary: '3 groups',
          data: { total: 7 },
        });
        toolCalls.push({
          callId,
          name: 'count_findings_by' as const,
          args,
          ok: true,
          summary: '3 groups',
          data: { total: 7 },
        });
      }
      for (const [i, text] of deltas.entries()) {
        if (script.hold && i === script.hold.afterDeltas) await waitForGate(script.hold.gate, signal);
        await sleep(script.deltaMs ?? 10, signal);
        // After the delay, so the delta before it went out first.
        if (script.stall && i === script.stall.afterDeltas) stallLoop(script.stall.gate);
        await ctx.emit({ type: 'text.delta', text });
      }
      if (script.failAttempts && attempt <= script.failAttempts) {
        throw new AgentTurnError('MODEL_UNAVAILABLE', 'The model server did not answer (scripted).', true);
      }
      if (script.fatal) throw new AgentTurnError(script.fatal, `Scripted failure ${script.fatal}.`, false);
      record.outcome = 'done';
      return { content: deltas.join(''), metadata: { toolCalls, model: 'scripted' } };
    } catch (e) {
      record.outcome = ctx.signal.aborted ? 'aborted' : 'failed';
      throw e;
    } finally {
      record.endedAt = Date.now();
      this.onRunEnded?.(record);
    }
  }
}

/** Provides `AGENT_RUNNER` = `runner` for `WorkerModule.forRoot({ agentModule })`. */
@Module({})
export class ScriptedRunnerModule {
  static forRoot(runner: AgentRunner): DynamicModule {
    return {
      module: ScriptedRunnerModule,
      providers: [{ provide: AGENT_RUNNER, useValue: runner }],
      exports: [AGENT_RUNNER],
    };
  }
}
