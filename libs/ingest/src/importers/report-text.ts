import type { ParsedFinding, ParsedReport } from './parsed-report';
import { removeBidiControls } from './text';

/** Longest finding title kept, in UTF-16 code units. */
export const TITLE_MAX_CHARS = 1_000;
/** Longest value of any other text field kept (description, impact, endpoints, raw strings…). */
export const TEXT_MAX_CHARS = 100_000;

/**
 * One value cut at import: `finding` (0-based) and `version` (1-based) are absent for the report's
 * metadata; `length` is the original length in UTF-16 code units.
 */
export interface TruncatedText {
  finding?: number;
  version?: number;
  field: string;
  length: number;
}

/** At most this many cuts are listed in `docMetadata.truncated`; `truncatedCount` has them all. */
const MAX_LISTED = 1_000;

/** `s` cut to `max` code units, never splitting a surrogate pair. */
function cut(s: string, max: number): string {
  let end = max;
  const last = s.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return s.slice(0, end);
}

/**
 * `s` as Postgres can store it: without NUL characters (text refuses them) and with lone UTF-16
 * surrogates replaced by U+FFFD (jsonb refuses their `\ud800` escapes).
 */
export function storable(s: string): string {
  if (!/[\0\uD800-\uDFFF]/.test(s)) return s;
  return s.replace(/\0/g, '').replace(LONE_SURROGATE, '\uFFFD');
}
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Collects the cuts of one report. */
class Cuts {
  readonly list: TruncatedText[] = [];
  count = 0;

  text<T extends string | null>(value: T, max: number, at: Omit<TruncatedText, 'length'>): T {
    if (value === null) return value;
    const s = storable(value);
    if (s.length <= max) return s as T;
    this.note({ ...at, length: s.length });
    return cut(s, max) as T;
  }

  /** Every string inside a JSON value, cut to `max`; records the longest original, once. */
  json(value: unknown, max: number, at: Omit<TruncatedText, 'length'>): unknown {
    let longest = 0;
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') {
        const s = storable(v);
        if (s.length <= max) return s;
        longest = Math.max(longest, s.length);
        return cut(s, max);
      }
      // Unchanged values are returned as they are, so a report without long text is not copied.
      if (Array.isArray(v)) {
        const out = v.map(walk);
        return out.some((x, i) => x !== v[i]) ? out : v;
      }
      if (typeof v === 'object' && v !== null) {
        let changed = false;
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) {
          if (k.length > max) longest = Math.max(longest, k.length);
          const key = k.length > max ? cut(storable(k), max) : storable(k);
          const y = walk(x);
          if (key !== k || y !== x) changed = true;
          out[key] = y;
        }
        return changed ? out : v;
      }
      return v;
    };
    const result = walk(value);
    if (longest > 0) this.note({ ...at, length: longest });
    return result;
  }

  private note(t: TruncatedText): void {
    this.count++;
    if (this.list.length < MAX_LISTED) this.list.push(t);
  }
}

function boundFinding(f: ParsedFinding, finding: number, cuts: Cuts): ParsedFinding {
  const long = TEXT_MAX_CHARS;
  return {
    ...f,
    versions: f.versions.map((v, i) => {
      const at = (field: string) => ({ finding, version: i + 1, field });
      return {
        ...v,
        // A title made only of direction controls would otherwise be stored empty.
        title: cuts.text(removeBidiControls(v.title), TITLE_MAX_CHARS, at('title')) || '(untitled)',
        description: cuts.text(v.description, long, at('description')),
        impact: cuts.text(v.impact, long, at('impact')),
        attackVector: cuts.text(v.attackVector, long, at('attackVector')),
        affectedEndpoints: cuts.json(v.affectedEndpoints, long, at('affectedEndpoints')) as string[],
        reproductionSteps: cuts.json(v.reproductionSteps, long, at('reproductionSteps')) as string[],
        mitre: cuts.json(v.mitre, long, at('mitre')) as string[],
        cvss: cuts.json(v.cvss, long, at('cvss')) as typeof v.cvss,
        raw: cuts.json(v.raw, long, at('raw')),
        editedBy: cuts.text(v.editedBy, long, at('editedBy')),
        reason: cuts.text(v.reason, long, at('reason')),
      };
    }),
    notes: cuts.json(f.notes, long, { finding, field: 'notes' }) as ParsedFinding['notes'],
    verdicts: cuts.json(f.verdicts, long, { finding, field: 'verdicts' }) as ParsedFinding['verdicts'],
  };
}

/**
 * The report with every text bounded, so no 40 MB title is stored or streamed to a model: titles
 * lose direction controls and are cut to {@link TITLE_MAX_CHARS}, other strings to
 * {@link TEXT_MAX_CHARS}, all made {@link storable}. Cuts are listed in `docMetadata.truncated`.
 */
export function boundReportText<R extends ParsedReport>(report: R): R {
  const cuts = new Cuts();
  const findings = report.findings.map((f, i) => boundFinding(f, i, cuts));
  const docMetadata = {
    ...(cuts.json(report.docMetadata, TEXT_MAX_CHARS, { field: 'docMetadata' }) as Record<string, unknown>),
  };
  if (cuts.count > 0) {
    docMetadata['truncated'] = cuts.list;
    docMetadata['truncatedCount'] = cuts.count;
  }
  const target = report.target?.map(storable);
  return { ...report, findings, docMetadata, ...(target ? { target } : {}) };
}
