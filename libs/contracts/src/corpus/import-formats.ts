import { REPORT_FILE_EXTENSIONS, REPORT_FORMATS, type ReportFormat } from './corpus.types';

/**
 * What the importers read, named and ordered as IMPORT-RULES.md's sections. A new importer is added
 * here and in `REPORT_FILE_EXTENSIONS` only.
 */
export const IMPORT_FORMAT_NAMES: Record<ReportFormat, string> = {
  sarif: 'SARIF 2.1.0',
  zap: 'OWASP ZAP',
  nuclei: 'Nuclei',
  trivy: 'Trivy JSON',
  burp: 'Burp Suite XML',
  nessus: 'Nessus (.nessus v2)',
  csv: 'CSV exports',
  json: 'native JSON',
  // Not an IMPORT-RULES format: a pentest report's text, read by the model or by an operator.
  pdf: 'PDF reports',
};

/** The supported formats as one sentence part: "SARIF 2.1.0, OWASP ZAP …, … and native JSON". */
export const SUPPORTED_IMPORT_FORMATS = ((names: string[]) =>
  `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`)(REPORT_FORMATS.map((f) => IMPORT_FORMAT_NAMES[f]));

/** Every file name ending an importer understands, once each. */
export const IMPORT_FILE_EXTENSIONS: readonly string[] = [
  ...new Set(Object.values(REPORT_FILE_EXTENSIONS).flat()),
];

/** `accept` of every report file picker: the endings plus the media types browsers give such files. */
export const IMPORT_ACCEPT = [
  ...IMPORT_FILE_EXTENSIONS,
  'application/json',
  'application/sarif+json',
  'text/xml',
  'text/csv',
  'application/pdf',
].join(',');

/** Largest file a chat attachment may be (10 MB); larger reports are imported on the Reports page. */
export const CHAT_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
