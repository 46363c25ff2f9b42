import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { DatePipe, DecimalPipe } from '@angular/common';
import { SEVERITIES, type ReportSummary, type Severity } from '@corpus-chat/contracts';
import { severityLabel } from '../i18n/labels';
import { DisplayTextPipe } from '../shared/display-text';

/** The parts of a report's `docMetadata` a person reads; every importer may leave any of them out. */
interface ReportFacts {
  tool: string | null;
  scanDate: string | null;
  target: string | null;
  suppressed: number | null;
  unmapped: { value: string; count: number }[];
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

/** What the importer recorded of the scan: tool and version, scan date, target, what it left out. */
export function reportFacts(r: ReportSummary): ReportFacts {
  const m = r.docMetadata ?? {};
  const tool = (m['tool'] ?? null) as { name?: unknown; version?: unknown } | null;
  const name = text(tool?.name);
  const version = text(tool?.version);
  const unmapped = m['unmappedSeverities'];
  return {
    tool: name ? (version ? `${name} ${version}` : name) : null,
    scanDate: text(m['scanDate']),
    target: text(m['target']),
    suppressed: typeof m['suppressed'] === 'number' ? m['suppressed'] : null,
    unmapped:
      unmapped && typeof unmapped === 'object'
        ? Object.entries(unmapped as Record<string, unknown>)
            .filter((e): e is [string, number] => typeof e[1] === 'number' && e[1] > 0)
            .map(([value, count]) => ({ value, count }))
        : [],
  };
}

/** A report's facts: scanner, scan, target, import, severities, and what was not counted. */
@Component({
  selector: 'cc-report-details',
  imports: [DatePipe, DecimalPipe, DisplayTextPipe],
  template: `
    @let r = report();
    @let f = facts();
    <dl class="facts" data-testid="report-details">
      <dt i18n="@@reportDetails.tool">Tool</dt>
      <dd data-testid="report-tool">{{ (f.tool | displayText) || '—' }}</dd>
      <dt i18n="@@reportDetails.scanDate">Scanned</dt>
      <dd>{{ f.scanDate ? (f.scanDate | date: 'medium') : '—' }}</dd>
      <dt i18n="@@reportDetails.target">Target</dt>
      <dd class="target">{{ (f.target | displayText) || '—' }}</dd>
      <dt i18n="@@reportDetails.imported">Imported</dt>
      <dd>
        <time [attr.datetime]="r.createdAt">{{ r.createdAt | date: 'medium' }}</time>
      </dd>
      <dt i18n="@@reportDetails.bySeverity">By severity</dt>
      <dd>
        @for (s of severities; track s) {
          @if (r.bySeverity[s]) {
            <span [class]="'sev sev-' + s">{{ label(s) }} {{ r.bySeverity[s] | number }}</span
            >&ngsp;
          }
        } @empty {
          —
        }
      </dd>
      <dt i18n="@@reportDetails.suppressed">Suppressed in the file</dt>
      <dd data-testid="report-suppressed">{{ f.suppressed === null ? '—' : (f.suppressed | number) }}</dd>
      <dt i18n="@@reportDetails.unmapped">Severities not mapped</dt>
      <dd data-testid="report-unmapped">
        @for (u of f.unmapped; track u.value) {
          <span>{{ u.value | displayText }}: {{ u.count | number }}</span
          >&ngsp;
        } @empty {
          0
        }
      </dd>
    </dl>
  `,
  styles: `
    .facts {
      display: grid;
      grid-template-columns: max-content 1fr;
      gap: 0.25rem 1rem;
      margin: 0.75rem 0 0;
    }
    dt {
      color: var(--muted);
    }
    dd {
      margin: 0;
      overflow-wrap: anywhere;
    }
    @media (max-width: 480px) {
      .facts {
        grid-template-columns: 1fr;
      }
      dd {
        margin-bottom: 0.4rem;
      }
    }
  `,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class ReportDetails {
  readonly report = input.required<ReportSummary>();
  protected readonly facts = computed(() => reportFacts(this.report()));
  protected readonly severities = SEVERITIES;
  protected label(s: Severity): string {
    return severityLabel(s);
  }
}
