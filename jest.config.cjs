/** All server-side Jest projects; `npm test` runs them together with two workers. */
module.exports = {
  projects: ['<rootDir>/libs/contracts', '<rootDir>/libs/corpus-queries', '<rootDir>/libs/server-core', '<rootDir>/apps/api', '<rootDir>/apps/agent-worker'],
};
