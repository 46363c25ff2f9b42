import { describe, expect, it } from 'vitest';
import type { FindingVersionView } from '@corpus-chat/contracts';
import { versionChanges } from './finding-version-diff';

const v1: FindingVersionView = {
  version: 1,
  origin: 'import',
  title: 'XSS in search',
  severity: 'medium',
  description: 'Reflected',
  impact: null,
  attackVector: null,
  affectedEndpoints: ['/search'],
  reproductionSteps: [],
  cwe: [79],
  cvss: null,
  mitre: [],
  editedBy: null,
  reason: null,
  createdAt: '2026-01-01T00:00:00Z',
};

describe('versionChanges', () => {
  it('lists newest first the fields each edit changed, none for version 1', () => {
    const v2 = {
      ...v1,
      version: 2,
      origin: 'edit' as const,
      severity: 'high' as const,
      cwe: [79, 80],
      editedBy: 'alice',
      reason: 'r',
    };
    const v3 = { ...v2, version: 3, impact: 'Session theft' };
    expect(versionChanges([v2, v1, v3]).map((v) => [v.version.version, v.changes])).toEqual([
      [3, [{ field: 'impact', before: '—', after: 'Session theft' }]],
      [
        2,
        [
          { field: 'severity', before: 'medium', after: 'high' },
          { field: 'cwe', before: 'CWE-79', after: 'CWE-79, CWE-80' },
        ],
      ],
      [1, []],
    ]);
  });
});
