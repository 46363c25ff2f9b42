import { z } from 'zod';
import { zodDto } from '../validation/zod-dto';
import { WEBHOOK_EVENT_TYPES } from './webhooks.types';

/** `POST /api/webhooks`; `allOperators` is admins' only. The API checks the URL before storing it. */
export class CreateWebhookDto extends zodDto(
  z.strictObject({
    url: z
      .string()
      .trim()
      .max(2000)
      .regex(/^https?:\/\/\S+$/i, {
        error: 'must be an https:// URL, e.g. https://hooks.example.org/corpus',
      }),
    events: z
      .array(z.enum(WEBHOOK_EVENT_TYPES))
      .min(1, { error: 'choose at least one event: turn.done, turn.error or turn.cancelled' })
      .transform((events) => [...new Set(events)]),
    allOperators: z.boolean().optional(),
  }),
) {}
