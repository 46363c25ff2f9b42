import { ChangeDetectionStrategy, Component, computed, input, output } from '@angular/core';
import { MarkdownView } from '../markdown/markdown';
import { ToolCard } from './tool-card';
import type { TurnPart, TurnPhase } from './turn-state';

/**
 * An assistant answer, stored or streaming: tool cards and Markdown prose in arrival order, then
 * the turn's state ("queued (position N)", "thinking", stopped, or the error with Retry).
 */
@Component({
  selector: 'cc-assistant-message',
  imports: [MarkdownView, ToolCard],
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
  readonly retry = output<void>();

  protected readonly running = computed(() => this.phase() === 'queued' || this.phase() === 'running');
  /** "thinking" while the worker has the turn but nothing new is being written. */
  protected readonly thinking = computed(() => {
    if (this.phase() !== 'running') return false;
    const last = this.parts().at(-1);
    return !last || (last.kind === 'tool' && last.call.state !== 'running');
  });
  protected readonly writing = computed(() => this.phase() === 'running' && this.parts().at(-1)?.kind === 'text');
}
