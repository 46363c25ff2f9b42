import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  signal,
  untracked,
} from '@angular/core';
import {
  type FeedbackRating,
  MAX_FEEDBACK_COMMENT_CHARS,
  type TurnFeedbackView,
} from '@corpus-chat/contracts';
import { ThreadStore } from './thread-store';

/**
 * Thumbs up or down under a finished answer, with an optional comment; the stored rating shows as
 * the pressed button. A click saves at once (keeping the comment); the comment is saved with its
 * own button.
 */
@Component({
  selector: 'cc-answer-feedback',
  templateUrl: './answer-feedback.html',
  styleUrl: './answer-feedback.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class AnswerFeedback {
  private readonly store = inject(ThreadStore);

  readonly turnId = input.required<string>();
  /** The operator's stored feedback on this turn, if any. */
  readonly feedback = input<TurnFeedbackView | null | undefined>(null);

  protected readonly maxChars = MAX_FEEDBACK_COMMENT_CHARS;
  protected readonly rating = computed(() => this.feedback()?.rating ?? null);
  protected readonly commenting = signal(false);
  protected readonly commentDraft = signal('');
  protected readonly saving = signal(false);
  protected readonly saved = signal(false);
  protected readonly error = signal<string | null>(null);

  constructor() {
    // A stored comment (after a reload or a save) is what the comment box starts from.
    effect(() => {
      const comment = this.feedback()?.comment ?? '';
      untracked(() => this.commentDraft.set(comment));
    });
  }

  protected rate(rating: FeedbackRating): Promise<void> {
    if (rating === this.rating()) return Promise.resolve();
    return this.save(rating, this.feedback()?.comment ?? null);
  }

  protected async saveComment(): Promise<void> {
    const rating = this.rating();
    if (!rating) return;
    await this.save(rating, this.commentDraft().trim() || null);
    if (!this.error()) this.commenting.set(false);
  }

  protected toggleComment(): void {
    this.commenting.update((open) => !open);
  }

  private async save(rating: FeedbackRating, comment: string | null): Promise<void> {
    this.saving.set(true);
    this.saved.set(false);
    this.error.set(null);
    const error = await this.store.rate(this.turnId(), rating, comment);
    this.saving.set(false);
    this.error.set(error);
    this.saved.set(!error);
  }
}
