export * from './operator.entity';
export * from './operators.queries';
export * from './api-token.entity';
export * from './api-tokens.queries';
export * from './operator-session.entity';
export * from './operator-sessions.queries';
