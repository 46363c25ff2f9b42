import { HttpErrorResponse } from '@angular/common/http';
import type { ApiErrorBody } from '@corpus-chat/contracts';
import { labelOf } from '../i18n/labels';

/** The notice for a session that expired or was ended elsewhere. */
export const SESSION_ENDED = (): string =>
  $localize`:@@error.sessionEnded:Your session has ended. Sign in again.`;

/** An actionable sentence for a failed API call: the API's message(s), else the status described. */
export function describeHttpError(err: unknown): string {
  if (!(err instanceof HttpErrorResponse))
    return err instanceof Error ? err.message : $localize`:@@error.unknown:Something went wrong.`;
  if (err.status === 0)
    return $localize`:@@error.unreachable:The server cannot be reached. Check your connection and try again.`;
  const body = err.error as Partial<ApiErrorBody> | string | null;
  if (body && typeof body === 'object' && body.message) {
    return Array.isArray(body.message) ? body.message.join('; ') : body.message;
  }
  if (typeof body === 'string' && body.trim() && body.length < 300 && !body.trimStart().startsWith('<'))
    return body;
  const status = `${err.status} ${err.statusText || ''}`.trim();
  return labelOf(String(err.status), $localize`:@@error.status:The server answered ${status}:status:.`, {
    401: SESSION_ENDED(),
    403: $localize`:@@error.forbidden:Your account is not allowed to do this.`,
    404: $localize`:@@error.notFound:Not found: it may have been deleted.`,
    413: $localize`:@@error.tooLarge:Too large for the server.`,
    429: $localize`:@@error.tooMany:Too many requests: wait a moment and try again.`,
    503: $localize`:@@error.unavailable:A server dependency is unavailable. Try again shortly.`,
  });
}

/** The HTTP status of a failed call, or `undefined` when it was not an HTTP error. */
export function httpStatus(err: unknown): number | undefined {
  return err instanceof HttpErrorResponse ? err.status : undefined;
}

/** Runs `action`: null when it succeeded, else why it failed (`describeHttpError`). */
export async function failureOf(action: () => Promise<unknown>): Promise<string | null> {
  try {
    await action();
    return null;
  } catch (err) {
    return describeHttpError(err);
  }
}
