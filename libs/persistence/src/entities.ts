import { AuditEventEntity } from './audit/audit-event.entity';
import { CHAT_ENTITIES } from './chat';
import { CORPUS_ENTITIES } from './corpus';
import { ApiTokenEntity } from './operators/api-token.entity';
import { OperatorEntity } from './operators/operator.entity';
import { OperatorSessionEntity } from './operators/operator-session.entity';
import { SettingsEntity } from './settings/settings.entity';
import { WebhookDeliveryEntity } from './webhooks/webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhooks/webhook-endpoint.entity';

/**
 * Every TypeORM entity of the product, in one list the data sources use. Add a new entity here
 * and a migration under `migrations/` (never `synchronize`).
 */
export const ALL_ENTITIES: Function[] = [
  ...CORPUS_ENTITIES,
  OperatorEntity,
  OperatorSessionEntity,
  ApiTokenEntity,
  SettingsEntity,
  ...CHAT_ENTITIES,
  AuditEventEntity,
  WebhookEndpointEntity,
  WebhookDeliveryEntity,
];
