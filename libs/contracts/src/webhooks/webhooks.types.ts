/** The events an endpoint may subscribe to: the three ways a turn ends. */
export const WEBHOOK_EVENT_TYPES = ['turn.done', 'turn.error', 'turn.cancelled'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Endpoints one operator may register (each is a place thread text is sent to). */
export const WEBHOOKS_PER_OPERATOR = 10;
/** Characters of the answer (or of the error or cancel reason) a delivery carries. */
export const WEBHOOK_TEXT_CHARS = 500;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** An endpoint as `GET /api/webhooks` lists it; its secret is answered only at creation. */
export interface WebhookEndpointView {
  id: string;
  url: string;
  events: WebhookEventType[];
  /** True: every operator's turns are sent (registered by an admin). */
  allOperators: boolean;
  createdAt: string;
}

/** `POST /api/webhooks` answers the signing secret (`whsec_…`) this once. */
export interface CreatedWebhookEndpoint extends WebhookEndpointView {
  secret: string;
}

/**
 * The body of each delivery (Standard Webhooks: `type`, `timestamp`, `data`). `link` is absolute
 * when `PUBLIC_ORIGIN` is set on the worker, else a path on the web app.
 */
export interface WebhookPayload {
  type: WebhookEventType;
  /** ISO 8601: when the turn ended. */
  timestamp: string;
  data: {
    threadId: string;
    threadTitle: string;
    turnId: string;
    /** The first `WEBHOOK_TEXT_CHARS` characters of the answer, or the error or cancel reason. */
    text: string;
    link: string;
  };
}

/** One delivery as `GET /api/webhooks/deliveries` lists it (newest first). */
export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  url: string;
  eventType: WebhookEventType;
  turnId: string;
  threadId: string;
  threadTitle: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  /** HTTP status of the last attempt, or null (none yet, or no answer: see `lastError`). */
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}
