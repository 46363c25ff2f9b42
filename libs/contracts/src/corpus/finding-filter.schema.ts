import { z } from 'zod';
import { FINDING_SOURCES, REPORT_FORMATS, SEVERITIES, VERDICT_STATUSES } from './corpus.types';
import { FINDING_EDIT_FILTERS, TRIAGE_STATUSES } from '../triage/triage.types';
import {
  ID_MAX,
  booleanText,
  collapsed,
  cweNumber,
  intUpTo,
  lowered,
  numeric,
  optionalField,
  unshownMaxLength,
} from '../validation/zod-fields';

const CWE_MESSAGE = 'must be a positive integer (79 for CWE-79)';

/**
 * Filter over current findings, shared by `searchFindings`, `countFindingsBy`, the agent's tools,
 * the REST API and the UI: the one declaration its type, its JSON Schema and its validation come
 * from. All fields are ANDed. `text` follows IMPORT-RULES.md (full-text search, widened by weakness
 * class). `reportId` or `reportName` (a report's filename, case-insensitive) select one report.
 * `format` selects the reports of one format as IMPORT-RULES.md detects it (a SARIF file written by
 * ZAP is `sarif`); `scanner` the reports whose scanner (`docMetadata.tool.name`, e.g. SARIF
 * `tool.driver.name`) contains it, case-insensitively. `status` is the triage status (`open` for a
 * finding nobody has triaged); `edited` the findings operators edited (`any`) or re-rated
 * (`severity`). The descriptions are what the model reads.
 */
export const findingFilterSchema = z.strictObject({
  text: optionalField(collapsed, unshownMaxLength(500)).describe(
    'Topic to search for, e.g. "SQL injection" or "jQuery": full-text search; a weakness class (XSS, ' +
      'SQLi…) also matches its CWE ids.',
  ),
  severity: optionalField(lowered, z.enum(SEVERITIES)),
  reportId: optionalField(numeric, intUpTo(1, ID_MAX)),
  reportName: optionalField(collapsed, unshownMaxLength(500)).describe(
    "Report file name, e.g. 'dd__flawfinder.sarif'.",
  ),
  format: optionalField(lowered, z.enum(REPORT_FORMATS)).describe(
    'Report format ("the Burp reports": burp).',
  ),
  scanner: optionalField(collapsed, unshownMaxLength(200)).describe(
    'Part of the scanner name, e.g. "semgrep".',
  ),
  cwe: optionalField(cweNumber, intUpTo(1, ID_MAX, CWE_MESSAGE)).describe('CWE id (79 for CWE-79).'),
  verdict: optionalField(lowered, z.enum(VERDICT_STATUSES)).describe('Latest retest verdict.'),
  includeArchived: optionalField(booleanText, z.boolean()).describe('Include archived reports if asked.'),
  // Self-describing enum: a description would count twice (two tools carry the filter) against the prompt budget.
  status: optionalField(lowered, z.enum(TRIAGE_STATUSES)),
  // Self-describing like status: "severity" keeps the findings operators re-rated (severity
  // changed since version 1), "any" every finding operators edited.
  edited: optionalField(lowered, z.enum(FINDING_EDIT_FILTERS)),
});

/**
 * The filter of the findings list (REST, the web Findings page, the query layer): the tools' filter
 * plus `origin`, where the finding came from (its version 1: `import` a scanner file, `extraction`
 * a model read it in a PDF report, `manual` a person entered it). The model's tools leave it out:
 * it would cost every request's prompt for a question operators ask the list, not the chat.
 */
export const findingListFilterSchema = findingFilterSchema.extend({
  origin: optionalField(lowered, z.enum(FINDING_SOURCES)),
});

export type FindingFilter = z.output<typeof findingListFilterSchema>;
