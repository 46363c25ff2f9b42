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
 * Filter over current findings, the one declaration of its type, JSON Schema and validation for
 * queries, tools, REST and UI. Fields are ANDed; `text` and `format` follow IMPORT-RULES.md. The
 * descriptions are what the model reads.
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
 * The findings list's filter: the tools' filter plus `origin` (how version 1 arrived). The tools
 * leave `origin` out: it would cost every prompt for a question asked of the list, not the chat.
 */
export const findingListFilterSchema = findingFilterSchema.extend({
  origin: optionalField(lowered, z.enum(FINDING_SOURCES)),
});

export type FindingFilter = z.output<typeof findingListFilterSchema>;
