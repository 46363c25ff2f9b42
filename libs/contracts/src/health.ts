/** `GET /api/health` (terminus format): `status` is `ok` only when every dependency is up. */
export interface HealthView {
  status: 'ok' | 'error' | 'shutting_down';
  info?: Record<string, { status: 'up' | 'down'; [k: string]: unknown }>;
  error?: Record<string, { status: 'up' | 'down'; [k: string]: unknown }>;
  details: Record<string, { status: 'up' | 'down'; [k: string]: unknown }>;
}

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
