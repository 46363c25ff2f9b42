/**
 * Every file of shared/corpus (scans of every format, edge/, pdf/, and the documentation files
 * beside them) imports or is refused with its own clear message; none crashes the importer and
 * none leaves rows behind. Burp, Nessus and CSV scans import with the counts per severity that
 * shared/questions/questions-r2.json gives for them.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ImportErrorCode, ImportOutcome, SeverityCounts } from '@corpus-chat/contracts';
import { corpusPath, sharedDir } from '../testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { countFindingsBy } from '@corpus-chat/corpus-queries';
import { importReport } from './import-report';

/** A bound, not a measurement: parsing a 2 MB XML export or dropping a full database takes seconds on a busy machine. */
const SLOW_STEP_MS = 30_000;

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
}, SLOW_STEP_MS);
afterAll(async () => {
  await db?.drop();
}, SLOW_STEP_MS);

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

type Expectation =
  | { ok: true; findings?: number; bySeverity?: Partial<SeverityCounts>; status?: 'ready' | 'needs_review' }
  | { ok: false; code: ImportErrorCode; message: RegExp };
const refused = (code: ImportErrorCode, message: RegExp): Expectation => ({ ok: false, code, message });

const EDGE: Record<string, Expectation> = {
  'burp__dd__dastardly-junit-not-burp-xml.xml': refused(
    'UNRECOGNISED_FORMAT',
    /^unrecognised format: XML with root element <testsuites>/,
  ),
  'burp__dd__one_finding_with_blank_response.xml': { ok: true, findings: 1 },
  'csv__dd__alertlogic-utf8-bom.csv': { ok: true, findings: 7 },
  'csv__dd__nessus_many_vuln-blank-rows.csv': { ok: true, findings: 4 },
  'nessus__dd__issue_6992-1.3MB-one-finding.nessus': { ok: true, findings: 1 },
  'nessus__dd__nessus_was_no_vuln.nessus': { ok: true, findings: 0 },
  'nuclei__dd__empty.jsonl': refused('EMPTY', /^the file holds no report$/),
  'nuclei__dd__invalid_cwe.json': { ok: true, findings: 1 },
  'nuclei__dd__issue_9201-single-object.json': { ok: true, findings: 1 },
  'pdf__ppr__CPTC-2020-Finals-G-image-only.pdf': refused(
    'NO_TEXT_LAYER',
    /^no text layer \(scanned image\); OCR is not supported$/,
  ),
  'sarif__dd__appendix_k1-empty-results.sarif': { ok: true, findings: 0 },
  'sarif__dd__no_runs.sarif': { ok: true, findings: 0 },
  'sarif__dd__suppression_test.sarif': { ok: true, findings: 2 },
  'sarif__sdk__V1-sarif-1.0.0.sarif': refused(
    'UNSUPPORTED_VERSION',
    /^SARIF version 1\.0\.0 is not supported/,
  ),
  'sarif__sechub__gitleaks-invalid-validator-severity.sarif.json': { ok: true, findings: 2 },
  'sarif__sechub__owasp_zap-reformatted-duplicate.sarif.json': refused(
    'DUPLICATE',
    /^this report was already imported as report \d+ \(sechub__owasp_zap\.sarif\.json\)/,
  ),
  'trivy__dd__kubernetes_fabricated_internal_duplicates.json': refused(
    'UNRECOGNISED_FORMAT',
    /^unrecognised format: older trivy-k8s/,
  ),
  'trivy__dd__legacy_no_vuln-null.json': refused('EMPTY', /^the file holds no report$/),
  'trivy__scb__k8s-scan-results-large.json': { ok: true },
  'trivy__scb__test-empty-report.json': refused('EMPTY', /^the file holds no report$/),
  'zap__bcgov-pin-mgmt-be__zap-2.14.0-itsecgames-rescan.json': { ok: true, findings: 12 },
  'zap__dd__dvwa_baseline_fabricated_internal_duplicates.xml': { ok: true },
  'zap__dd__empty_2.9.0.xml': { ok: true, findings: 0 },
  'zap__zapext__basic-traditional-json-plus.json': { ok: true, findings: 1 },
};

/**
 * Burp, Nessus and CSV scans: counts from questions-r2.json (r06–r10, r25, and the per-format
 * totals of r02–r05 and r13 less the other files of the format).
 */
const SCANS: Record<string, Expectation> = {
  'dd__issue4399-large.xml': { ok: true, findings: 441 },
  'dd__one_finding.xml': { ok: true, findings: 3 },
  'dd__one_finding_with_cwe.xml': { ok: true, findings: 1 },
  'dd__nessus_v_unknown.nessus': { ok: true, findings: 296, bySeverity: { info: 266, medium: 23 } },
  'dd__nessus_with_cvssv3.nessus': { ok: true, findings: 49, bySeverity: { critical: 2 } },
  'dd__nessus_was_many_vuln.nessus': { ok: true, findings: 5 },
  'dd__tenable_many_vuln.csv': { ok: true, bySeverity: { high: 12 } },
  'dd__openvas_report_using_CVE.csv': { ok: true, bySeverity: { medium: 22 } },
  'dd__generic_report_kev_cvssv4.csv': { ok: true, findings: 1, bySeverity: { low: 1 } },
  'dd__nessus_many_vuln2-all.csv': { ok: true },
};

function expectationFor(file: string): Expectation {
  const [top, sub] = file.split('/');
  if (top === 'edge') {
    const e = EDGE[path.basename(file)];
    if (!e) throw new Error(`no expectation written for ${file}`);
    return e;
  }
  // Outside the ingest worker no model reads a PDF: its text is stored for review by hand.
  if (top === 'pdf') return { ok: true, findings: 0, status: 'needs_review' };
  if (top === 'scans') {
    if (sub === 'burp' || sub === 'nessus' || sub === 'csv') {
      const e = SCANS[path.basename(file)];
      if (!e) throw new Error(`no expectation written for ${file}`);
      return e;
    }
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
  expect(
    files
      .filter((f) => f.startsWith('edge/'))
      .map((f) => path.basename(f))
      .sort(),
  ).toEqual(Object.keys(EDGE).sort());
  expect(files.length).toBeGreaterThan(80);
});

test.each(files.map((f) => [f]))(
  '%s imports or is refused cleanly',
  async (file) => {
    const before = await tableCounts();
    const outcome: ImportOutcome = await importReport(db.dataSource, {
      filename: file,
      bytes: fs.readFileSync(corpusPath(file)),
    });
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
    if (expected.bySeverity) {
      const rows: { severity: string; n: number }[] = await db.dataSource.query(
        `SELECT severity, count(*)::int AS n FROM findings WHERE report_id = $1 GROUP BY severity`,
        [outcome.reportId],
      );
      const counts = Object.fromEntries(rows.map((r) => [r.severity, r.n]));
      for (const [severity, n] of Object.entries(expected.bySeverity))
        expect([severity, counts[severity] ?? 0]).toEqual([severity, n]);
    }
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
      status: expected.status ?? 'ready',
      finding_count: outcome.findingCount,
      findings: outcome.findingCount,
      versions: outcome.findingCount,
    });
    expect(after.reports).toBe(before.reports + 1);
    expect(after.findings).toBe(before.findings + outcome.findingCount);
  },
  SLOW_STEP_MS,
);

test('the Burp, Nessus and CSV scans give the per-format counts of questions-r2.json', async () => {
  const rows: { format: string; severity: string; n: number }[] = await db.dataSource.query(
    `SELECT r.format, f.severity, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id
     WHERE r.filename = ANY($1) GROUP BY r.format, f.severity`,
    [Object.keys(SCANS)],
  );
  const count = (format: string, severity?: string) =>
    rows
      .filter((r) => r.format === format && (!severity || r.severity === severity))
      .reduce((n, r) => n + r.n, 0);
  expect([count('burp'), count('nessus'), count('csv')]).toEqual([445, 350, 94]);
  expect(['critical', 'high', 'medium', 'low', 'info'].map((s) => count('nessus', s))).toEqual([
    2, 11, 36, 11, 290,
  ]);
  expect([count('burp', 'high'), count('burp', 'low'), count('csv', 'low')]).toEqual([27, 343, 1]);
});

test('the round-2 corpus of questions-r2.json is 52 reports with 4,439 findings (r01, r13, r21)', async () => {
  const { corpus } = JSON.parse(
    fs.readFileSync(path.join(sharedDir(), 'questions', 'questions-r2.json'), 'utf8'),
  ) as {
    corpus: { files: string[] };
  };
  const names = corpus.files.map((f) => path.basename(f));
  expect(new Set(names).size).toBe(52);
  const [totals] = await db.dataSource.query(
    `SELECT count(DISTINCT r.id)::int AS reports, count(f.id)::int AS findings, count(f.id) FILTER (WHERE f.severity = 'critical')::int AS critical
     FROM reports r LEFT JOIN findings f ON f.report_id = r.id WHERE r.filename = ANY($1)`,
    [names],
  );
  expect(totals).toEqual({ reports: 52, findings: 4439, critical: 72 });
  const low: { format: string; n: number }[] = await db.dataSource.query(
    `SELECT r.format, count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id
     WHERE f.severity = 'low' AND r.filename = ANY($1) GROUP BY r.format ORDER BY n DESC, r.format`,
    [names],
  );
  expect(low).toEqual([
    { format: 'sarif', n: 493 },
    { format: 'burp', n: 343 },
    { format: 'trivy', n: 71 },
    { format: 'zap', n: 23 },
    { format: 'nessus', n: 11 },
    { format: 'nuclei', n: 3 },
    { format: 'csv', n: 1 },
  ]);
});

test('a CSV report names its layout; Burp and Nessus CWE ids are stored', async () => {
  const layouts: { filename: string; layout: string }[] = await db.dataSource.query(
    `SELECT filename, doc_metadata->>'csvLayout' AS layout FROM reports WHERE format = 'csv' ORDER BY filename`,
  );
  expect(layouts).toEqual([
    { filename: 'csv__dd__alertlogic-utf8-bom.csv', layout: 'alertlogic' },
    { filename: 'csv__dd__nessus_many_vuln-blank-rows.csv', layout: 'tenable-sc' },
    { filename: 'dd__generic_report_kev_cvssv4.csv', layout: 'defectdojo' },
    { filename: 'dd__nessus_many_vuln2-all.csv', layout: 'nessus' },
    { filename: 'dd__openvas_report_using_CVE.csv', layout: 'openvas' },
    { filename: 'dd__tenable_many_vuln.csv', layout: 'nessus' },
  ]);
  const cwe = async (format: string, id: number) => {
    const [row] = await db.dataSource.query(
      `SELECT count(*)::int AS n FROM findings f JOIN reports r ON r.id = f.report_id WHERE r.format = $1 AND f.cwe @> ARRAY[$2::int] AND r.filename = ANY($3)`,
      [format, id, Object.keys(SCANS)],
    );
    return row.n;
  };
  // questions-r2.json r11 (Burp findings with CWE-79) and r15 (the most common Nessus CWE).
  expect(await cwe('burp', 79)).toBe(13);
  expect(await cwe('nessus', 20)).toBe(8);
});

test('Burp titles and searched text give the counts of questions-r2.json (r12, r14)', async () => {
  const burp = ['dd__issue4399-large.xml', 'dd__one_finding.xml', 'dd__one_finding_with_cwe.xml'];
  const titles: { title: string; n: number }[] = await db.dataSource.query(
    `SELECT fv.title, count(*)::int AS n FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id
     JOIN reports r ON r.id = f.report_id WHERE r.filename = ANY($1) GROUP BY fv.title ORDER BY n DESC, fv.title LIMIT 2`,
    [burp],
  );
  expect(titles).toEqual([
    { title: 'Detailed Error Messages Revealed', n: 187 },
    { title: 'Browser cross-site scripting filter misconfiguration', n: 40 },
  ]);
  let sqlInjection = 0;
  for (const reportName of burp) {
    sqlInjection += (
      await countFindingsBy(db.dataSource.manager, {
        groupBy: 'severity',
        filter: { text: 'SQL injection', reportName },
      })
    ).total;
  }
  expect(sqlInjection).toBe(20);
});

test('the suppression fixture counts its suppressed results in the report metadata', async () => {
  const [row] = await db.dataSource.query(
    `SELECT doc_metadata FROM reports WHERE filename = 'sarif__dd__suppression_test.sarif'`,
  );
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
