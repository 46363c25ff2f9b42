export * from './settings.entity';
export * from './settings.queries';
