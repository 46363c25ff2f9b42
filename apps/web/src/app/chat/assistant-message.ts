import { ChangeDetectionStrategy, Component, computed, inject, input, output } from '@angular/core';
import { DecimalPipe } from '@angular/common';
import type { AnswerVerification } from '@corpus-chat/contracts';
import { MarkdownView } from '../markdown/markdown';
import { ToolCard } from './tool-card';
import { Clock } from '../shared/clock';
import type { TurnPart, TurnPhase, TurnProgress } from './turn-state';

/** Seconds without an event after which a running turn shows "waiting for the model (N s)". */
export const MODEL_WAIT_SHOWN_AFTER_S = 3;

/**
 * An assistant answer, stored or streaming: reasoning (collapsed), tool cards and Markdown in
 * arrival order with unsupported numbers highlighted and named, then the turn's state.
 */
@Component({
  selector: 'cc-assistant-message',
  imports: [DecimalPipe, MarkdownView, ToolCard],
  templateUrl: './assistant-message.html',
  styleUrl: './assistant-message.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class AssistantMessage {
  readonly parts = input.required<TurnPart[]>();
  readonly phase = input.required<TurnPhase>();
  /** True while following the turn from socket events (not yet stored). */
  readonly streaming = input(false);
  readonly queuePosition = input<number | null>(null);
  readonly attempt = input(1);
  readonly errorMessage = input<string | null>(null);
  readonly canRetry = input(false);
  readonly stopping = input(false);
  /** The answer's number check (`turn.done` or the stored metadata); `null` when there is none. */
  readonly verification = input<AnswerVerification | null>(null);
  /** The model's reasoning, shown as plain text; `null` or blank hides it. */
  readonly reasoning = input<string | null>(null);
  /** What the model is doing (the last `turn.progress`), while streaming. */
  readonly progress = input<TurnProgress | null>(null);
  /** When the turn's last event was published, while streaming. */
  readonly lastEventAt = input<string | null>(null);
  readonly retry = output<void>();
  private readonly clock = inject(Clock);
  protected readonly turnFailed = $localize`:@@answer.failed:The turn failed.`;

  protected readonly unsupported = computed<readonly string[]>(() => this.verification()?.unsupported ?? []);
  /** Whether the answer shows tool cards to check its numbers against. */
  protected readonly hasToolCards = computed(() => this.parts().some((p) => p.kind === 'tool'));
  protected readonly reasoningText = computed(() => (this.reasoning()?.trim() ? this.reasoning() : null));
  protected readonly running = computed(() => this.phase() === 'queued' || this.phase() === 'running');
  /** "thinking" while the worker has the turn but nothing new is being written. */
  protected readonly thinking = computed(() => {
    if (this.phase() !== 'running') return false;
    const last = this.parts().at(-1);
    return !last || (last.kind === 'tool' && last.call.state !== 'running');
  });
  /** Seconds the model has been silent (no event, no tool running), once over the threshold. */
  protected readonly silentFor = computed(() => {
    const at = this.lastEventAt();
    const last = this.parts().at(-1);
    if (this.phase() !== 'running' || !at || (last?.kind === 'tool' && last.call.state === 'running'))
      return null;
    const seconds = Math.floor((this.clock.now() - Date.parse(at)) / 1000);
    return seconds >= MODEL_WAIT_SHOWN_AFTER_S ? seconds : null;
  });
  /** Prompt processing done, in percent, while the server reports it. */
  protected readonly promptPercent = computed(() => {
    const p = this.progress();
    return p?.phase === 'prompt' && p.prompt ? Math.floor((100 * p.prompt.processed) / p.prompt.total) : null;
  });
  protected readonly writing = computed(
    () => this.phase() === 'running' && this.parts().at(-1)?.kind === 'text',
  );
}
