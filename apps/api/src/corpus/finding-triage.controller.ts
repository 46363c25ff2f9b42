import { Body, Controller, Get, HttpCode, NotFoundException, Patch, Post, UseFilters } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  AddFindingNoteDto,
  BulkSetFindingStatusDto,
  EditFindingDto,
  RecordRetestDto,
  SetFindingStatusDto,
  type BulkStatusResult,
  type FindingDetail,
  type FindingHistory,
} from '@corpus-chat/contracts';
import { CurrentOperator, type AuthenticatedOperator } from '../auth/current-operator';
import { IntIdParam } from '../errors/id-params';
import { FindingTriageService } from './finding-triage.service';
import { QueryValidationFilter } from './query-validation.filter';

/**
 * `/api/findings/…` writes: triage status (one or many), edits (a new version), notes and retests.
 * Any signed-in operator; each change records who and when, in the audit log too.
 */
@ApiTags('findings')
@UseFilters(QueryValidationFilter)
@Controller('findings')
export class FindingTriageController {
  constructor(private readonly triage: FindingTriageService) {}

  @Post('status')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Set the triage status of many findings, all or none; 404 an unknown id, 409 a transition not allowed',
  })
  bulkStatus(
    @Body() dto: BulkSetFindingStatusDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<BulkStatusResult> {
    return this.triage.setStatus(dto.ids, dto, operator);
  }

  @Patch(':id/status')
  @ApiOperation({
    summary:
      'Set the triage status of a finding (reason required for false_positive, risk_accepted, reopening); 409 a transition not allowed',
  })
  async status(
    @IntIdParam('id') id: number,
    @Body() dto: SetFindingStatusDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<FindingDetail> {
    await this.triage.setStatus([id], dto, operator);
    return this.triage.detail(id);
  }

  @Post(':id/versions')
  @ApiOperation({
    summary: 'Edit a finding: appends a version (origin edit) with the changed fields and the reason',
  })
  async edit(
    @IntIdParam('id') id: number,
    @Body() dto: EditFindingDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<FindingDetail> {
    await this.triage.edit(id, dto, operator);
    return this.triage.detail(id);
  }

  @Post(':id/notes')
  @ApiOperation({ summary: 'Add a note tagged general, triage, retest or verdict' })
  async note(
    @IntIdParam('id') id: number,
    @Body() dto: AddFindingNoteDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<FindingDetail> {
    await this.triage.addNote(id, dto, operator);
    return this.triage.detail(id);
  }

  @Post(':id/retests')
  @ApiOperation({
    summary: 'Record a retest run by hand (what was tried, when) and its verdict with a rationale',
  })
  async retest(
    @IntIdParam('id') id: number,
    @Body() dto: RecordRetestDto,
    @CurrentOperator() operator: AuthenticatedOperator,
  ): Promise<FindingDetail> {
    await this.triage.recordRetest(id, dto, operator);
    return this.triage.detail(id);
  }

  @Get(':id/history')
  @ApiOperation({ summary: 'Every version of a finding, its status changes and retests; 404 when unknown' })
  async history(@IntIdParam('id') id: number): Promise<FindingHistory> {
    const history = await this.triage.history(id);
    if (!history) throw new NotFoundException(`No finding has id ${id}.`);
    return history;
  }
}
