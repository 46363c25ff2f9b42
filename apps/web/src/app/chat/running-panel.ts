import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { DecimalPipe } from '@angular/common';
import { RouterLink } from '@angular/router';
import { DisplayTextPipe } from '../shared/display-text';
import { Clock } from '../shared/clock';
import { RunningStore, type RunningTurn } from './running-store';
import { UNTITLED_THREAD } from './thread-labels';

/** `m:ss` (or `h:mm:ss`) of a duration in ms. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/**
 * The Running panel: the operator's queued and running turns across threads, each with its place
 * in the queue and estimated start, the time since it was queued or started, the model with its
 * tokens so far and rate, and Stop.
 */
@Component({
  selector: 'cc-running-panel',
  imports: [DecimalPipe, DisplayTextPipe, RouterLink],
  templateUrl: './running-panel.html',
  styleUrl: './running-panel.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class RunningPanel {
  protected readonly store = inject(RunningStore);
  private readonly clock = inject(Clock);
  protected readonly untitled = UNTITLED_THREAD;

  protected elapsed(turn: RunningTurn): string {
    return formatElapsed(this.clock.now() - Date.parse(turn.startedAt ?? turn.createdAt));
  }

  /** Minutes until the estimated start (at least 1), or null without an estimate. */
  protected startsInMinutes(turn: RunningTurn): number | null {
    if (!turn.estimatedStartAt) return null;
    return Math.max(1, Math.round((Date.parse(turn.estimatedStartAt) - this.clock.now()) / 60_000));
  }

  protected stopTurn(turn: RunningTurn): void {
    void this.store.stop(turn);
  }
}
