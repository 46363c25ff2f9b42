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

/** The two rating buttons: their words (title and screen readers) and thumb outline. */
const THUMBS: readonly { rating: FeedbackRating; label: string; icon: string }[] = [
  {
    rating: 'up',
    label: $localize`:@@feedback.up:Helpful`,
    icon: 'M7 9v8H4V9zM7 9l3-6a2 2 0 012 2v3h4a1.5 1.5 0 011.5 1.8l-1.2 6A1.5 1.5 0 0113.8 17H7',
  },
  {
    rating: 'down',
    label: $localize`:@@feedback.down:Not helpful`,
    icon: 'M7 11V3H4v8zM7 11l3 6a2 2 0 002-2v-3h4a1.5 1.5 0 001.5-1.8l-1.2-6A1.5 1.5 0 0013.8 3H7',
  },
];

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

  protected readonly thumbs = THUMBS;
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
