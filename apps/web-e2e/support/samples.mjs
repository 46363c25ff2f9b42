/**
 * Files the import scenario uploads. Their expected counts follow IMPORT-RULES.md (SARIF 2.1.0):
 * a numeric `security-severity` ≥ 9.0 is critical; without one, `level` error → high,
 * warning → medium, note → low.
 */
import fs from 'node:fs';
import path from 'node:path';

/** A finding title that would run script if an answer rendered it as a live Markdown link. */
export const HOSTILE_TITLE = 'Reflected XSS, click [here](javascript:alert(document.cookie)) to reproduce';

/** Writes a small SARIF 2.1.0 log with one finding of each of four severities; returns its path and expected counts. */
export function writeSarifSample(dir, name, variant = 'picked') {
  const rules = [
    {
      id: 'E2E001',
      shortDescription: { text: 'SQL injection in login form' },
      properties: { 'security-severity': '9.8', tags: ['external/cwe/cwe-89'] },
    },
    {
      id: 'E2E002',
      shortDescription: { text: HOSTILE_TITLE },
      properties: { tags: ['external/cwe/cwe-79'] },
    },
    { id: 'E2E003', shortDescription: { text: 'Weak hash function' } },
    { id: 'E2E004', shortDescription: { text: 'Verbose server banner' } },
  ];
  const result = (ruleId, level, text, uri, line) => ({
    ruleId,
    level,
    message: { text },
    locations: [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: line } } }],
  });
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        // The variant changes the bytes, so a second sample is not refused as a duplicate.
        tool: { driver: { name: `e2e-scanner-${variant}`, version: '1.0.0', rules } },
        results: [
          result('E2E001', 'error', 'User input reaches a SQL query unescaped.', 'src/login.ts', 12),
          result('E2E002', 'error', 'Search term is echoed without encoding.', 'src/search.ts', 40),
          result('E2E003', 'warning', 'MD5 is used for password hashing.', 'src/auth.ts', 7),
          result('E2E004', 'note', 'The server banner names its version.', 'conf/server.xml', 3),
        ],
      },
    ],
  };
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify(log, null, 2));
  return {
    file,
    total: 4,
    bySeverity: { critical: 1, high: 1, medium: 1, low: 1, info: 0 },
    hostileTitle: HOSTILE_TITLE,
  };
}
