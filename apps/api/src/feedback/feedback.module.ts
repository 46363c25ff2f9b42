import { Module } from '@nestjs/common';
import { FeedbackController, TurnFeedbackController } from './feedback.controller';

/**
 * Operators' ratings of answers: the owner's `PUT` on a turn and the admins' list. Needs the
 * global `AuthModule` and TypeORM's `DataSource`.
 */
@Module({ controllers: [TurnFeedbackController, FeedbackController] })
export class FeedbackModule {}
