export * from './audit-event.entity';
export * from './audit-log';
