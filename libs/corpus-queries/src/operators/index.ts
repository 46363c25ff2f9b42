export * from './operator.entity';
export * from './operators.queries';
