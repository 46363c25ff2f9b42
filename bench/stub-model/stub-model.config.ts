/**
 * The benchmark's stub model, per run: it answers each scripted tool call (first chunk after
 * `ttftMs`), then streams `deltas` (first after `answerTtftMs`, then every `deltaIntervalMs`).
 */
export interface StubModelConfig {
  /** Milliseconds before the first chunk of a tool-call response (or of the answer when there are no tool calls). */
  ttftMs: number;
  /** Milliseconds before the first text delta of the answer that follows tool results. */
  answerTtftMs: number;
  /** Text deltas of the answer. */
  deltas: number;
  /** Milliseconds between two text deltas. */
  deltaIntervalMs: number;
  /** Tool calls the model makes, in order, before answering. */
  toolCalls: { name: string; args: Record<string, unknown> }[];
}

/** Default stub: 2 s to first token, 20 deltas, one `search_findings` call. */
export const DEFAULT_STUB_MODEL: StubModelConfig = {
  ttftMs: 2000,
  answerTtftMs: 0,
  deltas: 20,
  deltaIntervalMs: 1,
  toolCalls: [{ name: 'search_findings', args: { text: 'cookie', limit: 10 } }],
};

/** Model milliseconds of one turn under `c` (what the stub itself waits; everything else is ours). */
export function modelMsPerTurn(c: StubModelConfig): number {
  const streaming = Math.max(0, c.deltas - 1) * c.deltaIntervalMs;
  return c.toolCalls.length
    ? c.ttftMs * c.toolCalls.length + c.answerTtftMs + streaming
    : c.ttftMs + streaming;
}
