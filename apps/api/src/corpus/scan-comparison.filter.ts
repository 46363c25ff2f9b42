import { type ArgumentsHost, Catch, type ExceptionFilter, HttpStatus } from '@nestjs/common';
import type { Response } from 'express';
import type { ScanComparisonErrorCode } from '@corpus-chat/contracts';
import { ScanComparisonError } from '@corpus-chat/corpus-queries';

/** HTTP status of each reason two reports are not compared. */
const STATUS_OF: Record<ScanComparisonErrorCode, number> = {
  NOT_FOUND: HttpStatus.NOT_FOUND,
  NO_LATER_SCAN: HttpStatus.NOT_FOUND,
  AMBIGUOUS: HttpStatus.BAD_REQUEST,
  SAME_REPORT: HttpStatus.BAD_REQUEST,
  NO_TARGET: HttpStatus.UNPROCESSABLE_ENTITY,
  NOT_SAME_TARGET: HttpStatus.UNPROCESSABLE_ENTITY,
  ORDER_UNKNOWN: HttpStatus.CONFLICT,
};

/** A refused comparison answers its status with the query layer's message (which names both reports) and its code. */
@Catch(ScanComparisonError)
export class ScanComparisonFilter implements ExceptionFilter {
  catch(error: ScanComparisonError, host: ArgumentsHost): void {
    const status = STATUS_OF[error.code];
    host
      .switchToHttp()
      .getResponse<Response>()
      .status(status)
      .json({ statusCode: status, error: error.code, message: error.message });
  }
}
