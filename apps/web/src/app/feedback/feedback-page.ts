import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { DatePipe } from '@angular/common';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { RouterLink } from '@angular/router';
import type { FeedbackEntryView, FeedbackQueryDto, FeedbackRating } from '@corpus-chat/contracts';
import { failureOf } from '../http/api-error';
import { localDayStart } from '../shared/local-day';
import { OperatorDaysFields } from '../shared/operator-days-fields';
import { FeedbackApi } from './feedback-api';

const PAGE = 50;

/**
 * `/feedback` (admins): operators' thumbs up and down on answers with their comments, filtered by
 * rating, operator and date, each linking to its thread.
 */
@Component({
  selector: 'cc-feedback-page',
  imports: [DatePipe, OperatorDaysFields, ReactiveFormsModule, RouterLink],
  templateUrl: './feedback-page.html',
  styleUrl: './feedback-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class FeedbackPage {
  private readonly api = inject(FeedbackApi);

  protected readonly entries = signal<FeedbackEntryView[]>([]);
  protected readonly total = signal(0);
  protected readonly offset = signal(0);
  protected readonly loading = signal(false);
  protected readonly error = signal<string | null>(null);
  protected readonly hasNewer = computed(() => this.offset() > 0);
  protected readonly hasOlder = computed(() => this.offset() + this.entries().length < this.total());

  protected readonly form = inject(NonNullableFormBuilder).group({
    rating: ['' as FeedbackRating | ''],
    operatorId: [''],
    from: [''],
    to: [''],
  });

  constructor() {
    void this.load(0);
  }

  protected search(): Promise<void> {
    return this.load(0);
  }

  protected older(): Promise<void> {
    return this.load(this.offset() + PAGE);
  }

  protected newer(): Promise<void> {
    return this.load(Math.max(0, this.offset() - PAGE));
  }

  private async load(offset: number): Promise<void> {
    const v = this.form.getRawValue();
    const query: FeedbackQueryDto = {
      ...(v.rating ? { rating: v.rating } : {}),
      ...(v.operatorId ? { operatorId: v.operatorId } : {}),
      ...(v.from ? { from: localDayStart(v.from) } : {}),
      // "To" is inclusive of its whole day.
      ...(v.to ? { to: localDayStart(v.to, 1) } : {}),
      limit: PAGE,
      ...(offset ? { offset } : {}),
    };
    this.loading.set(true);
    this.error.set(null);
    const failure = await failureOf(async () => {
      const page = await this.api.list(query);
      this.entries.set(page.entries);
      this.total.set(page.total);
      this.offset.set(page.offset);
    });
    this.error.set(failure);
    this.loading.set(false);
  }
}
