import { Type } from 'class-transformer';
import { IsDateString, IsIn, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import { FEEDBACK_RATINGS, type FeedbackRating, MAX_FEEDBACK_COMMENT_CHARS } from './feedback.types';
import { OperatorIdFilter, PageLimit } from '../validation/dto-fields';

/** `PUT /api/chats/:chatId/turns/:turnId/feedback`: replaces the operator's feedback on the turn. */
export class TurnFeedbackDto {
  @IsIn(FEEDBACK_RATINGS, { message: `rating must be one of ${FEEDBACK_RATINGS.join(', ')}` })
  rating!: FeedbackRating;

  /** Optional; blank or null stores no comment. */
  @IsOptional()
  @IsString({ message: 'comment must be text' })
  @MaxLength(MAX_FEEDBACK_COMMENT_CHARS, {
    message: `comment must be at most ${MAX_FEEDBACK_COMMENT_CHARS.toLocaleString('en')} characters`,
  })
  comment?: string | null;
}

/** Query string of `GET /api/feedback` (admin); all filters ANDed. */
export class FeedbackQueryDto {
  @IsOptional()
  @IsIn(FEEDBACK_RATINGS, { message: `rating must be one of ${FEEDBACK_RATINGS.join(', ')}` })
  rating?: FeedbackRating;

  @OperatorIdFilter()
  operatorId?: string;

  /** Feedback given or changed at or after this instant (ISO 8601). */
  @IsOptional()
  @IsDateString({}, { message: 'from must be an ISO 8601 date or date-time' })
  from?: string;

  /** Feedback given or changed before this instant (ISO 8601). */
  @IsOptional()
  @IsDateString({}, { message: 'to must be an ISO 8601 date or date-time' })
  to?: string;

  @PageLimit()
  limit?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}
