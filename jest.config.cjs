/** All server-side Jest projects; `npm test` runs them together with three workers. */
module.exports = {
  projects: [
    '<rootDir>/libs/contracts',
    '<rootDir>/libs/persistence',
    '<rootDir>/libs/corpus-queries',
    '<rootDir>/libs/ingest',
    '<rootDir>/libs/server-core',
    '<rootDir>/apps/api',
    '<rootDir>/apps/agent-worker',
  ],
  // A global option: Jest ignores it in a project's config, so hooks fell back to 5 s and an API
  // start-up in `beforeAll` timed out on a loaded machine.
  testTimeout: 60000,
};
