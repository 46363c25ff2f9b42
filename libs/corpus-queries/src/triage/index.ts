export * from './finding-status';
export * from './finding-edit';
export * from './finding-notes';
export * from './finding-history';
export * from './carry-status';
