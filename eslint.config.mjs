// ESLint flat config: typescript-eslint for all TypeScript, angular-eslint for the web app, and
// Nx module boundaries so apps depend on libs and never the reverse.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import angular from 'angular-eslint';
import nx from '@nx/eslint-plugin';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/.angular/**',
      '**/.nx/**',
      '**/coverage/**',
      'test-artifacts/**',
      'tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unsafe-function-type': 'off',
      'no-empty': ['error', { allowEmptyCatch: false }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'type:data', onlyDependOnLibsWithTags: ['type:contracts', 'type:data'] },
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:data'] },
            { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['scope:shared', 'scope:web'] },
            // Storage is the bottom of the data libs; the queries and ingest build on it.
            {
              sourceTag: 'layer:persistence',
              onlyDependOnLibsWithTags: ['type:contracts', 'layer:persistence'],
            },
            {
              sourceTag: 'layer:queries',
              onlyDependOnLibsWithTags: [
                'type:contracts',
                'layer:persistence',
                'layer:queries',
                'layer:ingest',
              ],
            },
            {
              sourceTag: 'layer:ingest',
              onlyDependOnLibsWithTags: [
                'type:contracts',
                'layer:persistence',
                'layer:queries',
                'layer:ingest',
              ],
            },
          ],
          // An import compares the re-scan with the scan before it (a query); the queries' specs and
          // bench fill their database with the importer. Their source never imports ingest (below).
          ignoredCircularDependencies: [['corpus-queries', 'ingest']],
        },
      ],
    },
  },
  {
    files: ['libs/corpus-queries/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@corpus-chat/ingest', '@corpus-chat/ingest/*'],
              message: 'Queries read; ingest builds on them.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/test/**/*.ts', 'bench/**/*.ts', '**/bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // One concept per source module: a file past 450 lines (as `wc -l` counts them, after prettier) is
  // split by concept. Specs, test helpers and the browser tests are exempt.
  {
    files: ['{apps,libs,tools,bench}/**/*.{ts,mjs}'],
    ignores: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.spec.mjs', '**/test/**', '**/testing/**'],
    rules: { 'max-lines': ['error', { max: 450, skipBlankLines: false, skipComments: false }] },
  },
  {
    files: ['apps/web/**/*.ts'],
    extends: [...angular.configs.tsRecommended],
    processor: angular.processInlineTemplates,
    rules: {
      '@angular-eslint/directive-selector': [
        'error',
        { type: 'attribute', prefix: 'cc', style: 'camelCase' },
      ],
      '@angular-eslint/component-selector': ['error', { type: 'element', prefix: 'cc', style: 'kebab-case' }],
    },
  },
  {
    files: ['apps/web/**/*.html'],
    extends: [...angular.configs.templateRecommended, ...angular.configs.templateAccessibility],
  },
  {
    files: ['**/*.cjs', '**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        fetch: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
