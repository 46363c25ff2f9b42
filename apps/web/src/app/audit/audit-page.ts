import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { DatePipe } from '@angular/common';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { RouterLink } from '@angular/router';
import {
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditEventView,
  type AuditQueryDto,
} from '@corpus-chat/contracts';
import { failureOf } from '../http/api-error';
import { labelOf } from '../i18n/labels';
import { localDayStart } from '../shared/local-day';
import { OperatorDaysFields } from '../shared/operator-days-fields';
import { AuditApi } from './audit-api';

const PAGE = 50;

/** `{ status: 'open' }` → `status: open`; nested values as compact JSON. */
export function describeFields(fields: Record<string, unknown> | null): string {
  if (!fields) return '';
  return Object.entries(fields)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
}

/**
 * `/audit` (admins): the audit log, newest first, filtered by action, operator, subject and the
 * days (in the browser's time zone) it happened, with each change's before and after.
 */
@Component({
  selector: 'cc-audit-page',
  imports: [DatePipe, OperatorDaysFields, ReactiveFormsModule, RouterLink],
  templateUrl: './audit-page.html',
  styleUrl: './audit-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class AuditPage {
  private readonly api = inject(AuditApi);

  protected readonly actions = AUDIT_ACTIONS;
  protected readonly describeFields = describeFields;

  protected subjectLabel(subject: AuditEventView['subjectType']): string {
    return labelOf(subject, subject, {
      report: $localize`:@@audit.subjectReport:report`,
      finding: $localize`:@@audit.subjectFinding:finding`,
      settings: $localize`:@@audit.subjectSettings:settings`,
      operator: $localize`:@@audit.subjectOperator:operator`,
    });
  }
  protected readonly events = signal<AuditEventView[]>([]);
  protected readonly nextCursor = signal<string | null>(null);
  protected readonly loading = signal(false);
  protected readonly error = signal<string | null>(null);

  protected readonly form = inject(NonNullableFormBuilder).group({
    action: ['' as AuditAction | ''],
    actorId: [''],
    subjectType: ['' as AuditQueryDto['subjectType'] | ''],
    subjectId: [''],
    /** `YYYY-MM-DD` (date inputs), both days included. */
    from: [''],
    to: [''],
  });

  constructor() {
    void this.search();
  }

  /** Reads the first page for the form's filter. */
  protected search(): Promise<void> {
    return this.load(false);
  }

  protected loadMore(): Promise<void> {
    return this.load(true);
  }

  private async load(more: boolean): Promise<void> {
    const v = this.form.getRawValue();
    const query: AuditQueryDto = {
      ...(v.action ? { action: v.action } : {}),
      ...(v.actorId ? { actorId: v.actorId } : {}),
      ...(v.subjectType ? { subjectType: v.subjectType } : {}),
      ...(v.subjectId.trim() ? { subjectId: v.subjectId.trim() } : {}),
      ...(v.from ? { from: localDayStart(v.from) } : {}),
      ...(v.to ? { to: localDayStart(v.to, 1) } : {}),
      ...(more && this.nextCursor() ? { cursor: this.nextCursor()! } : {}),
      limit: PAGE,
    };
    this.loading.set(true);
    this.error.set(null);
    const failure = await failureOf(async () => {
      const page = await this.api.list(query);
      this.events.update((e) => (more ? [...e, ...page.events] : page.events));
      this.nextCursor.set(page.nextCursor);
    });
    this.error.set(failure);
    this.loading.set(false);
  }
}
