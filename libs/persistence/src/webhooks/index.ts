export * from './webhook-endpoint.entity';
export * from './webhook-delivery.entity';
export * from './webhooks.queries';
