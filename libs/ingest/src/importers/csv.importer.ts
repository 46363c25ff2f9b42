import { CsvError, parse, type Options } from 'csv-parse/sync';
import { CSV_LAYOUTS, LAYOUTS, type Cell, type CsvLayout, type IdentityKind } from './csv-layouts';
import { identityField, identityHost, identityProtocol, targetSet } from './identity';
import { invalidAt, unrecognised } from './import-refusal';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import { severityWord } from './severity-words';
import { SeverityCounter, stripHtml, stripHtmlOrNull } from './text';

/** Header delimiters, tried in this order (IMPORT-RULES: `,`, then `;`, then TAB). */
const DELIMITERS = [',', ';', '\t'] as const;

/**
 * RFC 4180 reading with the rules' tolerance for a `"` inside an unquoted field; records end at
 * LF or CRLF outside quotes; missing fields are read as empty, extra ones ignored.
 */
const READ_OPTIONS: Options = {
  relax_quotes: true,
  relax_column_count: true,
  record_delimiter: ['\r\n', '\n'],
};

/** The records of `text`; a quoted field still open at the end of the file ends there (IMPORT-RULES tolerance). */
function readRecords(text: string, delimiter: string, to?: number): string[][] {
  const options: Options = { ...READ_OPTIONS, delimiter, ...(to ? { to } : {}) };
  try {
    return parse(text, options) as string[][];
  } catch (e) {
    // Closing the open quote at the very end keeps everything up to the end of the file in that field.
    if (e instanceof CsvError && e.code === 'CSV_QUOTE_NOT_CLOSED')
      return parse(`${text}"`, options) as string[][];
    throw e;
  }
}

/** Header cell → index of the first column with that name (trimmed, lower-cased); empty names are ignored. */
function columnIndex(header: string[]): Map<string, number> {
  const index = new Map<string, number>();
  header.forEach((name, i) => {
    const key = name.trim().toLowerCase();
    if (key && !index.has(key)) index.set(key, i);
  });
  return index;
}

/** The first layout whose required columns the header holds, or null. */
function matchLayout(index: Map<string, number>): CsvLayout | null {
  for (const id of CSV_LAYOUTS) {
    if (LAYOUTS[id].required.every((c) => index.has(c))) return LAYOUTS[id];
  }
  return null;
}

/** The delimiter and layout of a CSV export's header row, or null when no delimiter gives a known layout. */
function detectLayout(
  text: string,
): { delimiter: string; layout: CsvLayout; index: Map<string, number> } | null {
  for (const delimiter of DELIMITERS) {
    let header: string[] | undefined;
    try {
      header = readRecords(text, delimiter, 1)[0];
    } catch {
      // Text that is not CSV under this delimiter simply matches no layout with it.
      continue;
    }
    if (!header) continue;
    const index = columnIndex(header);
    const layout = matchLayout(index);
    if (layout) return { delimiter, layout, index };
  }
  return null;
}

const NORMALISE: Record<IdentityKind, (v: unknown) => string> = {
  field: identityField,
  host: identityHost,
  protocol: identityProtocol,
};

/**
 * A CSV export (IMPORT-RULES "CSV exports"): the header, split by `,`, `;` or TAB, must hold every
 * column of one layout (checked in `CSV_LAYOUTS` order).
 *
 * @throws ImportRefusal `UNRECOGNISED_FORMAT` for no layout, `INVALID` for unreadable CSV.
 */
export function parseCsv(text: string): ParsedReport {
  const detected = detectLayout(text);
  if (!detected) {
    const firstLine = text.split(/\r?\n/, 1)[0].slice(0, 80);
    throw unrecognised(`text whose first line ("${firstLine}") is not the header row of a known CSV export`);
  }
  const { delimiter, layout, index } = detected;
  let records: string[][];
  try {
    records = readRecords(text, delimiter);
  } catch (e) {
    if (e instanceof CsvError)
      throw invalidAt(
        `line ${(e as CsvError & { lines?: number }).lines ?? '?'}`,
        `CSV could not be read: ${e.message}`,
      );
    throw e;
  }
  const severities = new SeverityCounter();
  const findings: ParsedFinding[] = [];
  const hosts: string[] = [];
  let suppressed = 0;
  const header = records[0] ?? [];
  for (const record of records.slice(1)) {
    const cell: Cell = (column) => {
      const i = index.get(column);
      return i === undefined ? '' : (record[i] ?? '');
    };
    if (cell(layout.title).trim() === '' || layout.isFixed?.(cell)) continue;
    if (layout.isFalsePositive?.(cell)) {
      suppressed++;
      continue;
    }
    if (layout.host) hosts.push(cell(layout.host));
    const finding = scannerFinding({
      title: stripHtml(cell(layout.title)),
      severity: severities.take(severityWord(cell(layout.severity))),
      description: layout.description
        .map((c) => stripHtml(cell(c)))
        .filter(Boolean)
        .join('\n'),
      impact: layout.impact ? stripHtmlOrNull(cell(layout.impact)) : null,
      affectedEndpoints: layout.endpoints(cell),
      cwe: layout.cwe(cell),
      raw: Object.fromEntries(
        header.flatMap((name, i) =>
          name.trim() && index.get(name.trim().toLowerCase()) === i ? [[name.trim(), record[i] ?? '']] : [],
        ),
      ),
    });
    finding.identity = layout.identity(cell).map(([value, kind]) => NORMALISE[kind](value));
    findings.push(finding);
  }
  const target = layout.host ? targetSet(hosts) : null;
  return {
    format: 'csv',
    findings,
    target,
    scannedAt: null,
    docMetadata: {
      tool: { name: layout.tool, version: null },
      csvLayout: layout.id,
      delimiter,
      target: target?.join(', ') ?? null,
      suppressed,
      unmappedSeverities: severities.unmapped,
    },
  };
}
