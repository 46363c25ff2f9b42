import { HttpErrorResponse } from '@angular/common/http';
import type { ApiErrorBody } from '@corpus-chat/contracts';

/**
 * A sentence an operator can act on for a failed API call: the API's own message when it sent one
 * (`ApiErrorBody.message`, joined when it is a list of validation errors), otherwise a description
 * of the status.
 */
export function describeHttpError(err: unknown): string {
  if (!(err instanceof HttpErrorResponse)) return err instanceof Error ? err.message : 'Something went wrong.';
  if (err.status === 0) return 'The server cannot be reached. Check your connection and try again.';
  const body = err.error as Partial<ApiErrorBody> | string | null;
  if (body && typeof body === 'object' && body.message) {
    return Array.isArray(body.message) ? body.message.join('; ') : body.message;
  }
  if (typeof body === 'string' && body.trim() && body.length < 300 && !body.trimStart().startsWith('<')) return body;
  switch (err.status) {
    case 401:
      return 'Your session has ended. Sign in again.';
    case 403:
      return 'Your account is not allowed to do this.';
    case 404:
      return 'Not found: it may have been deleted.';
    case 413:
      return 'Too large for the server.';
    case 429:
      return 'Too many requests: wait a moment and try again.';
    case 503:
      return 'A server dependency is unavailable. Try again shortly.';
    default:
      return `The server answered ${err.status} ${err.statusText || ''}`.trim() + '.';
  }
}

/** The HTTP status of a failed call, or `undefined` when it was not an HTTP error. */
export function httpStatus(err: unknown): number | undefined {
  return err instanceof HttpErrorResponse ? err.status : undefined;
}
