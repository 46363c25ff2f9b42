import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { QueryValidationError } from '@corpus-chat/corpus-queries';

/** A bad filter value reported by the query layer answers 400 with its message and field (never SQL). */
@Catch(QueryValidationError)
export class QueryValidationFilter implements ExceptionFilter {
  catch(error: QueryValidationError, host: ArgumentsHost): void {
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(400)
      .json({ statusCode: 400, error: 'Bad Request', message: error.message, field: error.field });
  }
}
