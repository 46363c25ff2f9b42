import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { documentedFor, documentedVariables, REPO_ROOT, schemaVariables } from '@corpus-chat/ingest/testing';
import { chatSocketEnvSchema } from '../chat/chat-socket.env';
import { settingsEnvSchema } from '../settings/settings.env';
import { apiEnvSchema } from './api-env';

describe('docs/configuration.md', () => {
  it('lists for the api exactly the variables of its env schemas', () => {
    expect(documentedFor('api')).toEqual(
      schemaVariables(apiEnvSchema, chatSocketEnvSchema, settingsEnvSchema),
    );
  });

  it('lists only variables some source file reads', () => {
    const sources = execFileSync('git', ['ls-files', 'apps', 'libs', 'tools', 'bench'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => /\.(ts|mjs|cjs|js)$/.test(f))
      .map((f) => fs.readFileSync(path.join(REPO_ROOT, f), 'utf8'))
      .join('\n');
    const unread = [...documentedVariables().keys()].filter(
      (name) => !new RegExp(`\\b${name}\\b`).test(sources),
    );
    expect(unread).toEqual([]);
  });
});
