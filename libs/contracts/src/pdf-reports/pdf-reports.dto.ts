import { z } from 'zod';
import { SEVERITIES } from '../corpus/corpus.types';
import { cweNumbers, optionalText } from '../validation/dto-fields';
import { numeric, optionalField } from '../validation/zod-fields';
import { zodDto } from '../validation/zod-dto';

/**
 * `POST /api/reports/:id/findings`: a finding an operator read in a PDF report (in `needs_review`)
 * and enters by hand; it becomes version 1 with origin `manual`.
 */
export class ManualFindingDto extends zodDto(
  z.strictObject({
    title: z.string().min(1, { error: 'must not be empty' }).max(1000),
    severity: z.enum(SEVERITIES, { error: `must be one of ${SEVERITIES.join(', ')}` }),
    /** CWE numbers (79 for CWE-79); optional. */
    cwe: cweNumbers(),
    description: optionalText(20000),
    /** Where it was found (a URL, host, file or component); stored as its affected endpoint. */
    location: optionalText(2000),
  }),
) {}

/** Most characters of a report's text one `GET /api/reports/:id/text` answers. */
export const REPORT_TEXT_MAX_CHARS = 200_000;

/** Query of `GET /api/reports/:id/text`: a window of the extracted text, in characters. */
const characters = { error: 'must be a whole number of characters' };
export class ReportTextQueryDto extends zodDto(
  z.strictObject({
    offset: optionalField(
      numeric,
      z.number(characters).int(characters).min(0, { error: 'must be 0 or more' }),
    ),
    limit: optionalField(
      numeric,
      z
        .number(characters)
        .int(characters)
        .min(1, { error: 'must be at least 1' })
        .max(REPORT_TEXT_MAX_CHARS, { error: `must be at most ${REPORT_TEXT_MAX_CHARS}` }),
    ),
  }),
) {}

/** `GET /api/reports/:id/text`: part of the text extracted from a PDF report, pages separated by a form feed (`\f`). */
export interface ReportTextView {
  reportId: number;
  pageCount: number;
  /** Characters of the whole text. */
  totalChars: number;
  offset: number;
  text: string;
  /** The offset of the next window; null at the end. */
  nextOffset: number | null;
}

/** `POST /api/reports/:id/findings` (201). */
export interface ManualFindingCreated {
  findingId: number;
  reportId: number;
  findingCount: number;
}
