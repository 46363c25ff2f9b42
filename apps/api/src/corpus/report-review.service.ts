import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  REPORT_TEXT_MAX_CHARS,
  type ManualFindingCreated,
  type ManualFindingDto,
  type ReportSummary,
  type ReportTextView,
} from '@corpus-chat/contracts';
import { addManualFinding, completeReportReview, readReportText } from '@corpus-chat/ingest';
import { reportSummaries } from '@corpus-chat/corpus-queries';
import type { AuthenticatedOperator } from '../auth/current-operator';

/** A PDF report's review over HTTP: its text, findings entered by hand, marking it reviewed. */
@Injectable()
export class ReportReviewService {
  constructor(private readonly dataSource: DataSource) {}

  /** @throws NotFoundException for an unknown id. */
  async report(id: number): Promise<ReportSummary> {
    const [report] = await reportSummaries(this.dataSource.manager, { includeArchived: true, ids: [id] });
    if (!report) throw new NotFoundException(`No report has id ${id}.`);
    return report;
  }

  /** @throws NotFoundException for an unknown report, or one without extracted text (not a PDF). */
  async text(id: number, offset = 0, limit = REPORT_TEXT_MAX_CHARS): Promise<ReportTextView> {
    const text = await readReportText(this.dataSource.manager, id, offset, limit);
    if (!text) {
      await this.report(id);
      throw new NotFoundException(`Report ${id} has no extracted text: only PDF reports have one.`);
    }
    return text;
  }

  /** @throws NotFoundException for an unknown report; ConflictException when it is not waiting for review. */
  async addFinding(
    id: number,
    dto: ManualFindingDto,
    operator: AuthenticatedOperator,
  ): Promise<ManualFindingCreated> {
    const result = await addManualFinding(this.dataSource.manager, id, dto, operator);
    if (result.status === 'not_found') throw new NotFoundException(`No report has id ${id}.`);
    if (result.status === 'conflict') throw new ConflictException(result.message);
    return { findingId: result.findingId, reportId: id, findingCount: result.findingCount };
  }

  /** @throws NotFoundException for an unknown report; ConflictException when it is not waiting for review. */
  async completeReview(id: number, operator: AuthenticatedOperator): Promise<ReportSummary> {
    const result = await completeReportReview(this.dataSource.manager, id, operator);
    if (result.status === 'not_found') throw new NotFoundException(`No report has id ${id}.`);
    if (result.status === 'conflict') throw new ConflictException(result.message);
    return this.report(id);
  }
}
