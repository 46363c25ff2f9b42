/** The exact read-only corpus queries, the corpus tools, and finding triage. */
export * from './queries';
export * from './tools';
export * from './triage';
