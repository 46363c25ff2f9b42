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
import { toSignal } from '@angular/core/rxjs-interop';
import { DatePipe, DecimalPipe, Location } from '@angular/common';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { ActivatedRoute, RouterLink, type Params } from '@angular/router';
import {
  OPERATOR_NOTE_STAGES,
  SEVERITIES,
  TRIAGE_STATUSES,
  TRIAGE_STATUSES_NEEDING_REASON,
  TRIAGE_TRANSITIONS,
  VERDICT_STATUSES,
  type FindingDetail,
  type EditableFindingField,
  type FindingHistory,
  type OperatorNoteStage,
  type Severity,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';
import { describeHttpError, httpStatus } from '../http/api-error';
import { noteStageLabel, severityLabel, triageStatusLabel, verdictLabel } from '../i18n/labels';
import { MarkdownView } from '../markdown/markdown';
import { DisplayTextPipe } from '../shared/display-text';
import { findingFilterFromQueryParams, findingListParams, parseCweInput } from './finding-filter-params';
import { versionChanges } from './finding-version-diff';
import { ReportsApi } from './reports-api';

/** A triage status or a retest verdict in words (`false_positive` → `false positive`). */
export const statusLabel = (s: string): string =>
  (TRIAGE_STATUSES as readonly string[]).includes(s) ? triageStatusLabel(s) : verdictLabel(s);

/** The edited fields as the history names them. */
const FIELD_LABELS: Record<EditableFindingField, string> = {
  title: $localize`:@@finding.field.title:Title`,
  severity: $localize`:@@finding.field.severity:Severity`,
  cwe: $localize`:@@finding.field.cwe:CWE`,
  description: $localize`:@@finding.field.description:Description`,
  impact: $localize`:@@finding.field.impact:Impact`,
  affectedEndpoints: $localize`:@@finding.field.affectedEndpoints:Affected endpoints`,
};

/** The forms that write to the finding; a refused write shows its error next to its form. */
type WriteForm = 'status' | 'edit' | 'note' | 'retest';

/** Where a version came from, in words. */
const ORIGIN_LABELS: Record<string, string> = {
  import: $localize`:@@finding.origin.import:imported`,
  edit: $localize`:@@finding.origin.edit:edited`,
  extraction: $localize`:@@finding.origin.extraction:extracted`,
  manual: $localize`:@@finding.origin.manual:entered by hand`,
};

/**
 * `/reports/findings/:findingId`: current version, triage, edits with history, notes, retests and
 * verdict; text fields through the chat's sanitising Markdown renderer. The URL carries the Findings
 * view's filter and page for the breadcrumb.
 */
@Component({
  selector: 'cc-finding-detail-page',
  imports: [DatePipe, DecimalPipe, DisplayTextPipe, MarkdownView, ReactiveFormsModule, RouterLink],
  templateUrl: './finding-detail-page.html',
  styleUrl: './finding-detail-page.css',
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class FindingDetailPage {
  private readonly api = inject(ReportsApi);
  private readonly location = inject(Location);
  private readonly fb = inject(NonNullableFormBuilder);

  /** Route parameter. */
  readonly findingId = input.required<string>();

  private readonly queryParams = toSignal(inject(ActivatedRoute).queryParams, { initialValue: {} as Params });
  /** The Findings view's filter and page this finding was opened from (only the keys that view reads). */
  protected readonly listParams = computed(() => {
    const q = this.queryParams();
    return findingListParams(findingFilterFromQueryParams(q), Number(q['page']));
  });

  protected readonly finding = signal<FindingDetail | null>(null);
  protected readonly history = signal<FindingHistory | null>(null);
  protected readonly loading = signal(true);
  protected readonly error = signal<string | null>(null);
  /** The last write's error, shown next to the form that sent it. */
  protected readonly writeError = signal<{ form: WriteForm; message: string } | null>(null);
  protected readonly saving = signal(false);
  protected readonly editing = signal(false);

  protected readonly severities = SEVERITIES;
  protected readonly noteStages = OPERATOR_NOTE_STAGES;
  protected readonly verdicts = VERDICT_STATUSES;
  protected readonly statusLabel = statusLabel;
  protected readonly fieldLabel = (f: EditableFindingField): string => FIELD_LABELS[f];
  protected readonly originLabel = (o: string): string => ORIGIN_LABELS[o] ?? o;
  /** A history change's value in words: a severity in the interface's language, other fields as written. */
  protected readonly changeValue = (field: EditableFindingField, value: string): string =>
    field === 'severity' ? severityLabel(value) : value;
  protected readonly severityLabel = severityLabel;
  protected readonly noteStageLabel = noteStageLabel;
  protected readonly reopenLabel = $localize`:@@finding.reopen:reopen`;
  protected readonly unknownAuthor = $localize`:@@finding.unknownAuthor:unknown`;
  protected readonly systemAuthor = $localize`:@@finding.systemAuthor:system`;
  /** Statuses the finding may move to now. */
  protected readonly nextStatuses = computed(() => {
    const f = this.finding();
    return f ? TRIAGE_TRANSITIONS[f.status] : [];
  });
  protected readonly versions = computed(() => versionChanges(this.history()?.versions ?? []));

  protected readonly statusForm = this.fb.group({ status: [''], reason: [''] });
  protected readonly editForm = this.fb.group({
    title: ['', Validators.required],
    severity: ['' as Severity | ''],
    cwe: [''],
    description: [''],
    impact: [''],
    affectedEndpoints: [''],
    reason: ['', Validators.required],
  });
  protected readonly noteForm = this.fb.group({
    stage: ['general' as OperatorNoteStage],
    body: ['', Validators.required],
  });
  protected readonly retestForm = this.fb.group({
    tried: ['', Validators.required],
    retestedAt: ['', Validators.required],
    verdict: ['' as VerdictStatus | '', Validators.required],
    rationale: ['', Validators.required],
  });

  constructor() {
    effect(() => {
      const id = Number(this.findingId());
      untracked(() => void this.load(id));
    });
  }

  protected back(): void {
    this.location.back();
  }

  /** Whether `status` needs a reason (dismissing, accepting the risk, reopening). */
  protected needsReason(status: string): boolean {
    return TRIAGE_STATUSES_NEEDING_REASON.includes(status as TriageStatus);
  }

  protected changeStatus(): void {
    const { status, reason } = this.statusForm.getRawValue();
    if (!status) return;
    if (this.needsReason(status) && !reason.trim()) {
      return this.refuse(
        'status',
        $localize`:@@finding.sayWhyStatus:Say why the finding becomes ${statusLabel(status)}:status:.`,
      );
    }
    void this.write(
      'status',
      (id) =>
        this.api.setStatus(id, {
          status: status as TriageStatus,
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        }),
      () => this.statusForm.reset({ status: '', reason: '' }),
    );
  }

  protected startEdit(): void {
    const c = this.finding()?.current;
    if (!c) return;
    this.editForm.reset({
      title: c.title,
      severity: c.severity,
      cwe: c.cwe.join(', '),
      description: c.description,
      impact: c.impact ?? '',
      affectedEndpoints: c.affectedEndpoints.join('\n'),
      reason: '',
    });
    this.writeError.set(null);
    this.editing.set(true);
  }

  protected saveEdit(): void {
    const c = this.finding()?.current;
    if (!c) return;
    const v = this.editForm.getRawValue();
    const cwe = v.cwe
      .split(/[,\s]+/)
      .filter(Boolean)
      .map(parseCweInput);
    if (cwe.some((x) => x === null || x === undefined)) {
      return this.refuse('edit', 'CWE ids must be whole numbers such as 79 or CWE-79, separated by commas.');
    }
    if (!v.reason.trim()) {
      return this.refuse('edit', $localize`:@@finding.sayWhyEdit:Say why the finding is edited.`);
    }
    const endpoints = v.affectedEndpoints
      .split('\n')
      .map((e) => e.trim())
      .filter(Boolean);
    // Only changed fields are sent: the version records what the operator meant to change.
    const edit = {
      ...(v.title.trim() !== c.title ? { title: v.title.trim() } : {}),
      ...(v.severity && v.severity !== c.severity ? { severity: v.severity } : {}),
      ...(cwe.join(',') !== c.cwe.join(',') ? { cwe: cwe as number[] } : {}),
      ...(v.description !== c.description ? { description: v.description } : {}),
      ...(v.impact !== (c.impact ?? '') ? { impact: v.impact } : {}),
      ...(endpoints.join('\n') !== c.affectedEndpoints.join('\n') ? { affectedEndpoints: endpoints } : {}),
      reason: v.reason.trim(),
    };
    if (Object.keys(edit).length === 1) {
      return this.refuse('edit', $localize`:@@finding.nothingChanged:Nothing was changed.`);
    }
    void this.write(
      'edit',
      (id) => this.api.editFinding(id, edit),
      () => this.editing.set(false),
    );
  }

  protected addNote(): void {
    const { stage, body } = this.noteForm.getRawValue();
    if (!body.trim()) return;
    void this.write(
      'note',
      (id) => this.api.addNote(id, { stage, body: body.trim() }),
      () => this.noteForm.reset({ stage: 'general', body: '' }),
    );
  }

  protected recordRetest(): void {
    const v = this.retestForm.getRawValue();
    if (this.retestForm.invalid || !v.verdict) {
      return this.refuse(
        'retest',
        $localize`:@@finding.retestIncomplete:Say what was tried, when, the verdict and why.`,
      );
    }
    const retestedAt = new Date(v.retestedAt).toISOString();
    void this.write(
      'retest',
      (id) =>
        this.api.recordRetest(id, {
          tried: v.tried.trim(),
          retestedAt,
          verdict: v.verdict as VerdictStatus,
          rationale: v.rationale.trim(),
        }),
      () => this.retestForm.reset({ tried: '', retestedAt: '', verdict: '', rationale: '' }),
    );
  }

  private refuse(form: WriteForm, message: string): void {
    this.writeError.set({ form, message });
  }

  /** Sends one change; on success shows the finding as the API answers it and reloads its history. */
  private async write(
    form: WriteForm,
    send: (id: number) => Promise<FindingDetail>,
    done: () => void,
  ): Promise<void> {
    const f = this.finding();
    if (!f || this.saving()) return;
    this.saving.set(true);
    this.writeError.set(null);
    try {
      this.finding.set(await send(f.id));
      done();
      this.history.set(await this.api.findingHistory(f.id));
    } catch (err) {
      this.refuse(form, describeHttpError(err));
    } finally {
      this.saving.set(false);
    }
  }

  private async load(id: number): Promise<void> {
    this.loading.set(true);
    this.error.set(null);
    this.finding.set(null);
    this.history.set(null);
    if (!Number.isInteger(id) || id < 1) {
      this.loading.set(false);
      this.error.set($localize`:@@finding.badId:This is not a finding id.`);
      return;
    }
    try {
      const [finding, history] = await Promise.all([this.api.findingDetail(id), this.api.findingHistory(id)]);
      this.finding.set(finding);
      this.history.set(history);
    } catch (err) {
      this.error.set(
        httpStatus(err) === 404
          ? $localize`:@@finding.missing:Finding #${id}:id: does not exist.`
          : describeHttpError(err),
      );
    } finally {
      this.loading.set(false);
    }
  }
}
