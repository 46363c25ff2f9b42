import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  ManualFindingDto,
  ReportTextQueryDto,
  type ManualFindingCreated,
  type ReportSummary,
  type ReportTextView,
} from '@corpus-chat/contracts';
import { ReadScope } from '../auth/auth.decorators';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { IntIdParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';
import { ReportReviewService } from './report-review.service';

/** One report and a PDF's review (text, hand-entered findings, mark reviewed); changes are audited. */
@ApiTags('reports')
@Controller('reports')
export class ReportReviewController {
  constructor(private readonly review: ReportReviewService) {}

  @Get(':id')
  @ReadScope()
  @ApiOperation({ summary: 'One report with its status and finding counts (archived ones too); 404 unknown' })
  report(@IntIdParam('id') id: number): Promise<ReportSummary> {
    return this.review.report(id);
  }

  @Get(':id/text')
  @ReadScope()
  @ApiOperation({
    summary:
      "A window of a PDF report's extracted text (characters offset…offset+limit, pages separated by a form feed); 404 unknown or not a PDF",
  })
  @ApiQueryFrom(ReportTextQueryDto)
  text(@IntIdParam('id') id: number, @Query() query: ReportTextQueryDto): Promise<ReportTextView> {
    return this.review.text(id, query.offset, query.limit);
  }

  @Post(':id/findings')
  @ApiOperation({
    summary:
      'Enter a finding read in a PDF report by hand (version 1, origin manual); 404 unknown, 409 the report is not waiting for review',
  })
  addFinding(
    @IntIdParam('id') id: number,
    @Body() dto: ManualFindingDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<ManualFindingCreated> {
    return this.review.addFinding(id, dto, operator);
  }

  @Post(':id/review-complete')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Mark a needs_review report reviewed: it becomes ready; 404 unknown, 409 not waiting for review',
  })
  completeReview(
    @IntIdParam('id') id: number,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<ReportSummary> {
    return this.review.completeReview(id, operator);
  }
}
