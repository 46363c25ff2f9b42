import { z } from 'zod';
import { FEEDBACK_RATINGS, MAX_FEEDBACK_COMMENT_CHARS } from './feedback.types';
import { isoDateText, operatorIdFilter, optionalQueryInt, pageLimit } from '../validation/dto-fields';
import { zodDto } from '../validation/zod-dto';

const rating = z.enum(FEEDBACK_RATINGS, { error: `must be one of ${FEEDBACK_RATINGS.join(', ')}` });

/** `PUT /api/chats/:chatId/turns/:turnId/feedback`: replaces the operator's feedback on the turn. */
export class TurnFeedbackDto extends zodDto(
  z.strictObject({
    rating,
    /** Optional; blank or null stores no comment. */
    comment: z
      .string({ error: 'must be text' })
      .max(MAX_FEEDBACK_COMMENT_CHARS, {
        error: `must be at most ${MAX_FEEDBACK_COMMENT_CHARS.toLocaleString('en')} characters`,
      })
      .nullish(),
  }),
) {}

/** Query string of `GET /api/feedback` (admin); all filters ANDed. */
export class FeedbackQueryDto extends zodDto(
  z.strictObject({
    rating: rating.optional(),
    operatorId: operatorIdFilter(),
    /** Feedback given or changed at or after this instant (ISO 8601). */
    from: isoDateText('must be an ISO 8601 date or date-time').optional(),
    /** Feedback given or changed before this instant (ISO 8601). */
    to: isoDateText('must be an ISO 8601 date or date-time').optional(),
    limit: pageLimit(),
    offset: optionalQueryInt(0),
  }),
) {}
