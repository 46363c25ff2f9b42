import { Body, ConflictException, Controller, Get, NotFoundException, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import {
  FeedbackQueryDto,
  type FeedbackPage,
  TurnFeedbackDto,
  type TurnFeedbackView,
} from '@corpus-chat/contracts';
import { listFeedback, saveTurnFeedback } from '@corpus-chat/persistence';
import { Roles } from '../auth/auth.decorators';
import { type AuthenticatedOperator, CurrentOperator } from '../auth/current-operator';
import { UuidParam } from '../errors/id-params';
import { ApiQueryFrom } from '../openapi-schemas';

/** `PUT /api/chats/:id/turns/:turnId/feedback`: the thread owner's thumbs up or down on an answer. */
@ApiTags('chats')
@Controller('chats/:id/turns/:turnId/feedback')
export class TurnFeedbackController {
  constructor(private readonly dataSource: DataSource) {}

  @Put()
  @ApiOperation({
    summary:
      'Rate an answer up or down with an optional comment (replaces your earlier rating); 404 unless your thread',
  })
  async save(
    @CurrentOperator() op: AuthenticatedOperator,
    @UuidParam('id') chatId: string,
    @UuidParam('turnId') turnId: string,
    @Body() dto: TurnFeedbackDto,
  ): Promise<TurnFeedbackView> {
    const outcome = await saveTurnFeedback(this.dataSource, op, chatId, turnId, dto);
    switch (outcome.kind) {
      case 'not-found':
        throw new NotFoundException('Turn not found in this chat.');
      case 'no-answer':
        throw new ConflictException('This turn has no answer yet: rate it once the answer is finished.');
      case 'saved':
        return outcome.feedback;
    }
  }
}

/** `GET /api/feedback` (admins only): every operator's ratings of answers, for review. */
@ApiTags('feedback')
@Roles('admin')
@Controller('feedback')
export class FeedbackController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @ApiOperation({
    summary:
      'Feedback on answers, most recently changed first, filtered by rating, operator and date (admin)',
  })
  @ApiQueryFrom(FeedbackQueryDto)
  list(@Query() query: FeedbackQueryDto): Promise<FeedbackPage> {
    return listFeedback(this.dataSource.manager, query);
  }
}
