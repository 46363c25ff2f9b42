/** Body of every 4xx/5xx answer of the API. */
export interface ApiErrorBody {
  statusCode: number;
  message: string | string[];
  error?: string;
  /** For 409 busy thread: the active turn. */
  activeTurnId?: string;
  /** For 409 duplicate import: the report that already holds these bytes. */
  existingReportId?: number;
}
