import {
  FINDING_EDIT_FILTERS,
  REPORT_FORMATS,
  SEVERITIES,
  TRIAGE_STATUSES,
  VERDICT_STATUSES,
  type FindingEditFilter,
  type ReportFormat,
  type Severity,
  type TriageStatus,
  type VerdictStatus,
} from '@corpus-chat/contracts';

/**
 * A bad argument to a query function: `field` names it and `message` says what is accepted, in
 * words a model or a person can act on. Never carries SQL.
 */
export class QueryValidationError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'QueryValidationError';
  }
}

/** A filter checked and normalised by {@link normaliseFilter}. */
export interface NormalisedFilter {
  text?: string;
  severity?: Severity;
  reportId?: number;
  reportName?: string;
  format?: ReportFormat;
  scanner?: string;
  cwe?: number;
  verdict?: VerdictStatus;
  status?: TriageStatus;
  edited?: FindingEditFilter;
  includeArchived: boolean;
}

const FILTER_KEYS = ['text', 'severity', 'reportId', 'reportName', 'format', 'scanner', 'cwe', 'verdict', 'status', 'edited', 'includeArchived'] as const;

function positiveInt(field: string, value: unknown): number {
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > 2147483647) {
    throw new QueryValidationError(field, `${field} must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A whole number within [min, max]; `fallback` when absent. */
export function intInRange(field: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new QueryValidationError(field, `${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * Checks a finding filter and returns it normalised: `severity`, `verdict` and `status` lower-cased and checked
 * against their lists, ids positive integers, `cwe` a number or `CWE-79`, blank text dropped.
 * Keys not listed in `allowedExtra` or the filter fields are refused (a misspelt filter must not
 * silently count everything).
 *
 * @throws QueryValidationError naming the field.
 */
export function normaliseFilter(input: unknown, allowedExtra: readonly string[] = []): NormalisedFilter {
  if (input === undefined || input === null) return { includeArchived: false };
  if (typeof input !== 'object' || Array.isArray(input)) throw new QueryValidationError('filter', 'filter must be an object');
  const f = input as Record<string, unknown>;
  for (const key of Object.keys(f)) {
    if (!(FILTER_KEYS as readonly string[]).includes(key) && !allowedExtra.includes(key)) {
      throw new QueryValidationError(key, `unknown filter field "${key}"; the fields are ${FILTER_KEYS.join(', ')}`);
    }
  }
  const out: NormalisedFilter = { includeArchived: false };

  if (f['text'] !== undefined && f['text'] !== null) {
    if (typeof f['text'] !== 'string') throw new QueryValidationError('text', 'text must be a string');
    const text = f['text'].replace(/\s+/g, ' ').trim();
    if (text.length > 500) throw new QueryValidationError('text', 'text must be at most 500 characters');
    if (text) out.text = text;
  }
  if (f['severity'] !== undefined && f['severity'] !== null) {
    const s = typeof f['severity'] === 'string' ? f['severity'].trim().toLowerCase() : f['severity'];
    if (!(SEVERITIES as readonly unknown[]).includes(s)) {
      throw new QueryValidationError('severity', `severity must be one of ${SEVERITIES.join(', ')}, got ${JSON.stringify(f['severity'])}`);
    }
    out.severity = s as Severity;
  }
  if (f['reportId'] !== undefined && f['reportId'] !== null) out.reportId = positiveInt('reportId', f['reportId']);
  if (f['reportName'] !== undefined && f['reportName'] !== null) {
    if (typeof f['reportName'] !== 'string' || f['reportName'].trim() === '') {
      throw new QueryValidationError('reportName', 'reportName must be a report file name, e.g. dd__flawfinder.sarif');
    }
    out.reportName = f['reportName'].trim();
  }
  if (f['format'] !== undefined && f['format'] !== null) {
    const v = typeof f['format'] === 'string' ? f['format'].trim().toLowerCase() : f['format'];
    if (!(REPORT_FORMATS as readonly unknown[]).includes(v)) {
      throw new QueryValidationError('format', `format must be one of ${REPORT_FORMATS.join(', ')}, got ${JSON.stringify(f['format'])}`);
    }
    out.format = v as ReportFormat;
  }
  if (f['scanner'] !== undefined && f['scanner'] !== null) {
    if (typeof f['scanner'] !== 'string' || f['scanner'].trim() === '' || f['scanner'].length > 200) {
      throw new QueryValidationError('scanner', 'scanner must be part of a scanner name (1 to 200 characters), e.g. semgrep');
    }
    out.scanner = f['scanner'].replace(/\s+/g, ' ').trim();
  }
  if (f['cwe'] !== undefined && f['cwe'] !== null) {
    const raw = f['cwe'];
    const m = typeof raw === 'string' ? /^\s*(?:cwe[-_ ]?)?(\d+)\s*$/i.exec(raw) : null;
    out.cwe = positiveInt('cwe', m ? m[1] : raw);
  }
  if (f['verdict'] !== undefined && f['verdict'] !== null) {
    const v = typeof f['verdict'] === 'string' ? f['verdict'].trim().toLowerCase() : f['verdict'];
    if (!(VERDICT_STATUSES as readonly unknown[]).includes(v)) {
      throw new QueryValidationError('verdict', `verdict must be one of ${VERDICT_STATUSES.join(', ')}, got ${JSON.stringify(f['verdict'])}`);
    }
    out.verdict = v as VerdictStatus;
  }
  if (f['status'] !== undefined && f['status'] !== null) {
    const v = typeof f['status'] === 'string' ? f['status'].trim().toLowerCase() : f['status'];
    if (!(TRIAGE_STATUSES as readonly unknown[]).includes(v)) {
      throw new QueryValidationError('status', `status must be one of ${TRIAGE_STATUSES.join(', ')}, got ${JSON.stringify(f['status'])}`);
    }
    out.status = v as TriageStatus;
  }
  if (f['edited'] !== undefined && f['edited'] !== null) {
    const v = typeof f['edited'] === 'string' ? f['edited'].trim() : f['edited'];
    if (!(FINDING_EDIT_FILTERS as readonly unknown[]).includes(v)) {
      throw new QueryValidationError('edited', `edited must be one of ${FINDING_EDIT_FILTERS.join(', ')}, got ${JSON.stringify(f['edited'])}`);
    }
    out.edited = v as FindingEditFilter;
  }
  if (f['includeArchived'] !== undefined && f['includeArchived'] !== null) {
    const a = f['includeArchived'];
    if (typeof a === 'boolean') out.includeArchived = a;
    else if (a === 'true' || a === 'false') out.includeArchived = a === 'true';
    else throw new QueryValidationError('includeArchived', 'includeArchived must be true or false');
  }
  return out;
}

/** A finding id: a positive integer. @throws QueryValidationError */
export function findingId(value: unknown): number {
  return positiveInt('id', value);
}
