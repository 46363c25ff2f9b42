import { Type } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { SEVERITIES, type Severity } from '../corpus/corpus.types';
import { IsOmittable } from '../validation/is-omittable';
import { CweNumbers, OptionalText } from '../validation/dto-fields';

/**
 * `POST /api/reports/:id/findings`: a finding an operator read in a PDF report (in `needs_review`)
 * and enters by hand; it becomes version 1 with origin `manual`.
 */
export class ManualFindingDto {
  @IsString()
  @MinLength(1, { message: 'title must not be empty' })
  @MaxLength(1000)
  title!: string;

  @IsIn(SEVERITIES, { message: `severity must be one of ${SEVERITIES.join(', ')}` })
  severity!: Severity;

  /** CWE numbers (79 for CWE-79); optional. */
  @CweNumbers()
  cwe?: number[];

  @OptionalText(20000)
  description?: string;

  /** Where it was found (a URL, host, file or component); stored as its affected endpoint. */
  @OptionalText(2000)
  location?: string;
}

/** Most characters of a report's text one `GET /api/reports/:id/text` answers. */
export const REPORT_TEXT_MAX_CHARS = 200_000;

/** Query of `GET /api/reports/:id/text`: a window of the extracted text, in characters. */
export class ReportTextQueryDto {
  @IsOmittable()
  @Type(() => Number)
  @IsInt({ message: 'offset must be a whole number of characters' })
  @Min(0, { message: 'offset must be 0 or more' })
  offset?: number;

  @IsOmittable()
  @Type(() => Number)
  @IsInt({ message: 'limit must be a whole number of characters' })
  @Min(1, { message: 'limit must be at least 1' })
  @Max(REPORT_TEXT_MAX_CHARS, { message: `limit must be at most ${REPORT_TEXT_MAX_CHARS}` })
  limit?: number;
}

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
