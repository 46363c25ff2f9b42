import type { ChatEventBody, TurnProgressPhase } from '@corpus-chat/contracts';

/** Least time between two `turn.progress` events of a turn in the same phase. */
const PROGRESS_INTERVAL_MS = 1000;

type Progress = Extract<ChatEventBody, { type: 'turn.progress' }>;

/**
 * Emits `turn.progress` at most once a second (at once on a phase change): one token per streamed
 * chunk, and llama.cpp's `prompt_progress` while it reads the prompt.
 */
export class ProgressMeter {
  private tokens = 0;
  private firstTokenAt = 0;
  private lastSentAt = 0;
  private lastPhase: TurnProgressPhase | null = null;

  constructor(
    private readonly emit: (event: Progress) => Promise<void>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Says the turn runs again after waiting for a model slot: the request now goes to the server,
   * which first reads the prompt.
   */
  async resumed(model: string): Promise<void> {
    this.lastPhase = 'prompt';
    this.lastSentAt = this.now();
    await this.emit({
      type: 'turn.progress',
      model,
      phase: 'prompt',
      tokens: this.tokens,
      tokensPerSecond: null,
    });
  }

  /** Takes one streamed chunk of a request to `model`; emits when it is time to. */
  async chunk(model: string, chunk: unknown): Promise<void> {
    const c = (chunk ?? {}) as Record<string, unknown>;
    const delta = ((c['choices'] as { delta?: Record<string, unknown> }[] | undefined)?.[0]?.delta ??
      {}) as Record<string, unknown>;
    const prompt = promptProgressOf(c['prompt_progress']);
    let phase: TurnProgressPhase | null = prompt ? 'prompt' : null;
    if (nonEmpty(delta['reasoning_content']) || nonEmpty(delta['reasoning'])) phase = 'reasoning';
    else if (nonEmpty(delta['content']) || Array.isArray(delta['tool_calls'])) phase = 'answer';
    if (!phase) return;
    const at = this.now();
    if (phase !== 'prompt') {
      this.tokens += 1;
      if (!this.firstTokenAt) this.firstTokenAt = at;
    }
    if (phase === this.lastPhase && at - this.lastSentAt < PROGRESS_INTERVAL_MS) return;
    this.lastPhase = phase;
    this.lastSentAt = at;
    const seconds = (at - this.firstTokenAt) / 1000;
    await this.emit({
      type: 'turn.progress',
      model,
      phase,
      tokens: this.tokens,
      tokensPerSecond:
        this.firstTokenAt && seconds > 0 ? Math.round((this.tokens / seconds) * 10) / 10 : null,
      ...(prompt ? { prompt } : {}),
    });
  }
}

const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** llama.cpp's `prompt_progress: {total, cache, processed, time_ms}`, when valid. */
function promptProgressOf(raw: unknown): { processed: number; total: number } | null {
  if (!raw || typeof raw !== 'object') return null;
  const { processed, total } = raw as Record<string, unknown>;
  return typeof processed === 'number' && typeof total === 'number' && total > 0
    ? { processed, total }
    : null;
}
