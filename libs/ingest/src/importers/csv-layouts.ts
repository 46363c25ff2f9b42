import { cweId, uniqueSorted } from './text';

/** The CSV layouts of IMPORT-RULES.md "CSV exports", in the order they are checked. */
export const CSV_LAYOUTS = [
  'nessus',
  'tenable-sc',
  'tenable-vm',
  'openvas',
  'defectdojo',
  'alertlogic',
] as const;
export type CsvLayoutId = (typeof CSV_LAYOUTS)[number];

/** A cell of the current record by header name (trimmed, case-insensitive); '' when the column is absent. */
export type Cell = (column: string) => string;

/** How one layout's columns become a finding (IMPORT-RULES.md, the layout table and identity table). */
export interface CsvLayout {
  id: CsvLayoutId;
  /** The exporting tool, for the report's metadata. */
  tool: string;
  /** Columns the header must contain (lower-case). */
  required: string[];
  title: string;
  severity: string;
  /** Columns joined with a newline, those not empty. */
  description: string[];
  impact?: string;
  cwe: (cell: Cell) => number[];
  /** The host column of the identity table (the report's target); absent for `defectdojo`. */
  host?: string;
  /** `affected_endpoints` of a record. */
  endpoints: (cell: Cell) => string[];
  /** The identity fields of a record, before normalisation: `[value, kind]` pairs. */
  identity: (cell: Cell) => [string, IdentityKind][];
  /** A record that reports a vulnerability that is gone (`Fixed`): not a finding, counted nowhere. */
  isFixed?: (cell: Cell) => boolean;
  /** A record the file marks as a false positive: not a finding, counted as suppressed. */
  isFalsePositive?: (cell: Cell) => boolean;
}

/** How an identity field is normalised (IMPORT-RULES: hosts lower-cased without a trailing `/`, protocols lower-cased). */
export type IdentityKind = 'field' | 'host' | 'protocol';

/** Every `CWE:N`, `CWE #N` or `CWE-N` (any case) of a reference list such as Nessus' `XREF`. */
function referencedCwes(text: string): number[] {
  return uniqueSorted(
    [...text.matchAll(/CWE\s*(?::|#|-)\s*(\d+)/gi)]
      .map((m) => Number(m[1]))
      .filter((n) => Number.isSafeInteger(n) && n > 0),
  );
}

/** Every number of a list such as `192, 330, 400, 770` (0 ignored). */
function everyNumber(text: string): number[] {
  return uniqueSorted(
    [...text.matchAll(/\d+/g)].map((m) => Number(m[0])).filter((n) => Number.isSafeInteger(n) && n > 0),
  );
}

/** `host`, then `:port` and `/protocol` when present and the port is not `0`. */
function hostEndpoint(hostCell: string, portCell: string, protocolCell: string): string[] {
  const [host, port, protocol] = [hostCell.trim(), portCell.trim(), protocolCell.trim()];
  if (!host) return [];
  if (!port || port === '0') return [host];
  return [`${host}:${port}${protocol ? `/${protocol}` : ''}`];
}

const equalsWord = (value: string, word: string): boolean => value.trim().toLowerCase() === word;

/** Alert Logic's `Protocol/Port` cell (`TCP/8080`) as its two parts. */
function protocolPort(value: string): { protocol: string; port: string } {
  const [protocol = '', port = ''] = value.split('/').map((s) => s.trim());
  return { protocol, port };
}

export const LAYOUTS: Record<CsvLayoutId, CsvLayout> = {
  nessus: {
    id: 'nessus',
    tool: 'Nessus / Tenable Vulnerability Management',
    required: ['plugin id', 'risk', 'host', 'name'],
    title: 'name',
    severity: 'risk',
    description: ['synopsis', 'description'],
    cwe: (c) => referencedCwes(c('xref')),
    host: 'host',
    endpoints: (c) => hostEndpoint(c('host'), c('port'), c('protocol')),
    identity: (c) => [
      [c('host'), 'host'],
      [c('plugin id'), 'field'],
      [c('port'), 'field'],
      [c('protocol'), 'protocol'],
    ],
    isFixed: (c) => equalsWord(c('vulnerability state'), 'fixed'),
  },
  'tenable-sc': {
    id: 'tenable-sc',
    tool: 'Tenable Security Center',
    required: ['plugin', 'plugin name', 'severity', 'ip address'],
    title: 'plugin name',
    severity: 'severity',
    description: ['synopsis', 'description'],
    cwe: (c) => referencedCwes(c('cross references')),
    host: 'ip address',
    endpoints: (c) => hostEndpoint(c('ip address'), c('port'), c('protocol')),
    identity: (c) => [
      [c('ip address'), 'host'],
      [c('plugin'), 'field'],
      [c('port'), 'field'],
      [c('protocol'), 'protocol'],
    ],
  },
  'tenable-vm': {
    id: 'tenable-vm',
    tool: 'Tenable Vulnerability Management',
    required: ['definition.id', 'definition.name', 'severity'],
    title: 'definition.name',
    severity: 'severity',
    description: ['definition.synopsis', 'definition.description'],
    cwe: (c) => everyNumber(c('definition.cwe')),
    host: 'asset.id',
    endpoints: (c) => hostEndpoint(c('asset.id'), c('port'), c('protocol')),
    identity: (c) =>
      c('id').trim()
        ? [[c('id'), 'field']]
        : [
            [c('asset.id'), 'host'],
            [c('definition.id'), 'field'],
            [c('port'), 'field'],
            [c('protocol'), 'protocol'],
          ],
    isFixed: (c) => equalsWord(c('state'), 'fixed'),
  },
  openvas: {
    id: 'openvas',
    tool: 'Greenbone OpenVAS',
    required: ['nvt name', 'nvt oid', 'severity'],
    title: 'nvt name',
    severity: 'severity',
    description: ['summary'],
    impact: 'impact',
    cwe: () => [],
    host: 'ip',
    endpoints: (c) => hostEndpoint(c('ip'), c('port'), c('port protocol')),
    identity: (c) => [
      [c('ip'), 'host'],
      [c('nvt oid'), 'field'],
      [c('port'), 'field'],
      [c('port protocol'), 'protocol'],
    ],
    isFalsePositive: (c) => equalsWord(c('severity'), 'false positive'),
  },
  defectdojo: {
    id: 'defectdojo',
    tool: 'DefectDojo Generic Findings Import',
    required: ['date', 'title', 'severity', 'description'],
    title: 'title',
    severity: 'severity',
    description: ['description'],
    impact: 'impact',
    cwe: (c) =>
      uniqueSorted([
        ...[cweId(c('cweid'))].filter((n): n is number => n !== null),
        ...everyNumber(c('cweids')),
      ]),
    endpoints: (c) => (c('url').trim() ? [c('url').trim()] : []),
    identity: (c) => [
      [c('title'), 'field'],
      [c('url'), 'field'],
    ],
    isFalsePositive: (c) => equalsWord(c('falsepositive'), 'true'),
  },
  alertlogic: {
    id: 'alertlogic',
    tool: 'Alert Logic',
    required: ['vulnerability', 'severity', 'asset name', 'vulnerability id'],
    title: 'vulnerability',
    severity: 'severity',
    description: ['description'],
    cwe: () => [],
    host: 'asset name',
    endpoints: (c) => {
      const { protocol, port } = protocolPort(c('protocol/port'));
      return hostEndpoint(c('asset name'), port, protocol);
    },
    identity: (c) =>
      c('vulnerability key').trim()
        ? [[c('vulnerability key'), 'field']]
        : [
            [c('vulnerability'), 'field'],
            [c('asset name'), 'host'],
            [c('protocol/port'), 'field'],
          ],
  },
};
