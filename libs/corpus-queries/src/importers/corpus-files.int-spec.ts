/**
 * Every file of shared/corpus (scans of supported and not-yet-supported formats, edge/, pdf/, and
 * the documentation files beside them) imports or is refused with its own clear message; none
 * crashes the importer and none leaves rows behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportErrorCode, ImportOutcome } from '@corpus-chat/contracts';
import { corpusPath, createTestDatabase, sharedDir, type TestDatabase } from '../testing';
import { importReport } from './import-report';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

function walk(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const root = path.join(sharedDir(), 'corpus');
// scans/ first, so that the reformatted duplicate in edge/ meets its original.
const files = walk(root)
  .map((f) => path.relative(root, f))
  .sort((a, b) => Number(!a.startsWith('scans/')) - Number(!b.startsWith('scans/')) || a.localeCompare(b));

type Expectation = { ok: true; findings?: number } | { ok: false; code: ImportErrorCode; message: RegExp };
const refused = (code: ImportErrorCode, message: RegExp): Expectation => ({ ok: false, code, message });

const EDGE: Record<string, Expectation> = {
  'burp__dd__dastardly-junit-not-burp-xml.xml': refused('UNRECOGNISED_FORMAT', /^unrecognised format: XML with root element <testsuites>/),
  'burp__dd__one_finding_with_blank_response.xml': refused('UNSUPPORTED_FORMAT', /^format Burp Suite XML is not supported yet$/),
  'csv__dd__alertlogic-utf8-bom.csv': refused('UNSUPPORTED_FORMAT', /^format CSV is not supported yet$/),
  'csv__dd__nessus_many_vuln-blank-rows.csv': refused('UNSUPPORTED_FORMAT', /^format CSV is not supported yet$/),
  'nessus__dd__issue_6992-1.3MB-one-finding.nessus': refused('UNSUPPORTED_FORMAT', /^format Nessus is not supported yet$/),
  'nessus__dd__nessus_was_no_vuln.nessus': refused('UNSUPPORTED_FORMAT', /^format Nessus is not supported yet$/),
  'nuclei__dd__empty.jsonl': refused('EMPTY', /^the file holds no report$/),
  'nuclei__dd__invalid_cwe.json': { ok: true, findings: 1 },
  'nuclei__dd__issue_9201-single-object.json': { ok: true, findings: 1 },
  'pdf__ppr__CPTC-2020-Finals-G-image-only.pdf': refused('UNSUPPORTED_FORMAT', /^format PDF is not supported yet$/),
  'sarif__dd__appendix_k1-empty-results.sarif': { ok: true, findings: 0 },
  'sarif__dd__no_runs.sarif': { ok: true, findings: 0 },
  'sarif__dd__suppression_test.sarif': { ok: true, findings: 2 },
  'sarif__sdk__V1-sarif-1.0.0.sarif': refused('UNSUPPORTED_VERSION', /^SARIF version 1\.0\.0 is not supported/),
  'sarif__sechub__gitleaks-invalid-validator-severity.sarif.json': { ok: true, findings: 2 },
  'sarif__sechub__owasp_zap-reformatted-duplicate.sarif.json': refused(
    'DUPLICATE',
    /^this report was already imported as report \d+ \(sechub__owasp_zap\.sarif\.json\)/,
  ),
  'trivy__dd__kubernetes_fabricated_internal_duplicates.json': refused('UNRECOGNISED_FORMAT', /^unrecognised format: older trivy-k8s/),
  'trivy__dd__legacy_no_vuln-null.json': refused('EMPTY', /^the file holds no report$/),
  'trivy__scb__k8s-scan-results-large.json': { ok: true },
  'trivy__scb__test-empty-report.json': refused('EMPTY', /^the file holds no report$/),
  'zap__bcgov-pin-mgmt-be__zap-2.14.0-itsecgames-rescan.json': { ok: true, findings: 12 },
  'zap__dd__dvwa_baseline_fabricated_internal_duplicates.xml': { ok: true },
  'zap__dd__empty_2.9.0.xml': { ok: true, findings: 0 },
  'zap__zapext__basic-traditional-json-plus.json': { ok: true, findings: 1 },
};

function expectationFor(file: string): Expectation {
  const [top, sub] = file.split('/');
  if (top === 'edge') {
    const e = EDGE[path.basename(file)];
    if (!e) throw new Error(`no expectation written for ${file}`);
    return e;
  }
  if (top === 'pdf') return refused('UNSUPPORTED_FORMAT', /^format PDF is not supported yet$/);
  if (top === 'scans') {
    if (sub === 'burp') return refused('UNSUPPORTED_FORMAT', /^format Burp Suite XML is not supported yet$/);
    if (sub === 'nessus') return refused('UNSUPPORTED_FORMAT', /^format Nessus is not supported yet$/);
    if (sub === 'csv') return refused('UNSUPPORTED_FORMAT', /^format CSV is not supported yet$/);
    return { ok: true };
  }
  // README-like files, licences and the weakness-class table are no reports.
  return refused('UNRECOGNISED_FORMAT', /^unrecognised format: /);
}

async function tableCounts(): Promise<Record<string, number>> {
  const [row] = await db.dataSource.query(
    `SELECT (SELECT count(*) FROM reports)::int AS reports, (SELECT count(*) FROM findings)::int AS findings,
            (SELECT count(*) FROM finding_versions)::int AS versions`,
  );
  return row;
}

test('the corpus holds every kind of file this test expects', () => {
  expect(files.filter((f) => f.startsWith('edge/')).map((f) => path.basename(f)).sort()).toEqual(Object.keys(EDGE).sort());
  expect(files.length).toBeGreaterThan(80);
});

test.each(files.map((f) => [f]))('%s imports or is refused cleanly', async (file) => {
  const before = await tableCounts();
  const outcome: ImportOutcome = await importReport(db.dataSource, { filename: file, bytes: fs.readFileSync(corpusPath(file)) });
  const after = await tableCounts();
  const expected = expectationFor(file);

  expect(outcome.file).toBe(path.basename(file));
  if (!expected.ok) {
    expect(outcome).toMatchObject({ ok: false, code: expected.code });
    if (!outcome.ok) expect(outcome.error).toMatch(expected.message);
    expect(after).toEqual(before);
    return;
  }
  if (!outcome.ok) throw new Error(`${file} was refused: ${outcome.error}`);
  if (expected.findings !== undefined) expect(outcome.findingCount).toBe(expected.findings);
  const [report] = await db.dataSource.query(
    `SELECT r.filename, r.format, r.status, r.finding_count,
            (SELECT count(*)::int FROM findings f WHERE f.report_id = r.id) AS findings,
            (SELECT count(*)::int FROM finding_versions v JOIN findings f ON f.id = v.finding_id WHERE f.report_id = r.id) AS versions
     FROM reports r WHERE r.id = $1`,
    [outcome.reportId],
  );
  expect(report).toEqual({
    filename: path.basename(file),
    format: outcome.format,
    status: 'ready',
    finding_count: outcome.findingCount,
    findings: outcome.findingCount,
    versions: outcome.findingCount,
  });
  expect(after.reports).toBe(before.reports + 1);
  expect(after.findings).toBe(before.findings + outcome.findingCount);
});

test('the suppression fixture counts its suppressed results in the report metadata', async () => {
  const [row] = await db.dataSource.query(`SELECT doc_metadata FROM reports WHERE filename = 'sarif__dd__suppression_test.sarif'`);
  expect(row.doc_metadata).toMatchObject({ suppressed: 3, unmappedSeverities: 0 });
});

test('a CWE value that is not a positive integer is ignored', async () => {
  const rows = await db.dataSource.query(
    `SELECT f.cwe FROM findings f JOIN reports r ON r.id = f.report_id WHERE r.filename = 'nuclei__dd__invalid_cwe.json'`,
  );
  expect(rows).toEqual([{ cwe: [] }]);
});

test('a Trivy secret never stores the matched secret', async () => {
  const rows: { raw: Record<string, unknown>; description: string }[] = await db.dataSource.query(
    `SELECT fv.raw, fv.description FROM finding_versions fv JOIN findings f ON f.id = fv.finding_id
     JOIN reports r ON r.id = f.report_id
     WHERE r.filename = 'dd__misconfigurations_and_secrets.json' AND fv.raw ? 'RuleID'`,
  );
  expect(rows.length).toBe(2);
  for (const r of rows) {
    expect(r.raw['Match']).toBe('[redacted]');
    expect(r.raw['Code']).toBeUndefined();
  }
});
