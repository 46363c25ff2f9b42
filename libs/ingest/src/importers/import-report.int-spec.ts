/** importReport against Postgres: one transaction per file, duplicates, size limit, native reports. */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, corpusPath } from '../testing';
import { createTestDatabase, type TestDatabase } from '@corpus-chat/persistence/testing';
import { corpusVersion, setReportArchived, findingDetail } from '@corpus-chat/corpus-queries';
import { importReport } from './import-report';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const json = (v: unknown): Uint8Array => Buffer.from(JSON.stringify(v));
async function counts(): Promise<Record<string, number>> {
  const [row] = await db.dataSource.query(
    `SELECT (SELECT count(*) FROM reports)::int AS reports, (SELECT count(*) FROM findings)::int AS findings,
            (SELECT count(*) FROM finding_versions)::int AS versions, (SELECT count(*) FROM finding_notes)::int AS notes,
            (SELECT count(*) FROM verdicts)::int AS verdicts`,
  );
  return row;
}

test('re-importing the same report is refused naming the existing one, until that one is archived', async () => {
  const bytes = fs.readFileSync(corpusPath('scans/sarif/dd__flawfinder.sarif'));
  const first = await importReport(db.dataSource, { filename: '/somewhere/dd__flawfinder.sarif', bytes });
  expect(first).toEqual({
    ok: true,
    file: 'dd__flawfinder.sarif',
    reportId: expect.any(Number),
    format: 'sarif',
    findingCount: 53,
  });
  if (!first.ok) return;

  const before = await counts();
  const again = await importReport(db.dataSource, { filename: 'renamed.sarif', bytes });
  expect(again).toMatchObject({ ok: false, code: 'DUPLICATE', existingReportId: first.reportId });
  if (!again.ok) expect(again.error).toContain(`report ${first.reportId} (dd__flawfinder.sarif)`);
  expect(await counts()).toEqual(before);

  expect((await setReportArchived(db.dataSource.manager, first.reportId, true)).status).toBe('ok');
  const afterArchive = await importReport(db.dataSource, { filename: 'dd__flawfinder.sarif', bytes });
  expect(afterArchive).toMatchObject({ ok: true, findingCount: 53 });
  // Restoring the archived copy would make two live reports with the same content.
  const restore = await setReportArchived(db.dataSource.manager, first.reportId, false);
  expect(restore).toMatchObject({
    status: 'conflict',
    existingReportId: afterArchive.ok ? afterArchive.reportId : -1,
  });
});

test('a PDF report imported again is refused the same way, naming the one waiting for review', async () => {
  const bytes = fs.readFileSync(corpusPath('pdf/ppr__NCATS-VADR-Sample-Report.pdf'));
  const first = await importReport(db.dataSource, { filename: 'vadr.pdf', bytes });
  expect(first).toMatchObject({ ok: true, format: 'pdf', findingCount: 0 });
  if (!first.ok) return;
  const again = await importReport(db.dataSource, { filename: 'vadr-copy.pdf', bytes });
  expect(again).toMatchObject({ ok: false, code: 'DUPLICATE', existingReportId: first.reportId });
  if (!again.ok) expect(again.error).toContain(`report ${first.reportId} (vadr.pdf)`);
});
test('two concurrent imports of the same bytes write one report', async () => {
  const bytes = fs.readFileSync(corpusPath('scans/nuclei/dd__many_findings.jsonl'));
  const outcomes = await Promise.all(
    [1, 2, 3].map(() => importReport(db.dataSource, { filename: 'dd__many_findings.jsonl', bytes })),
  );
  expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
  expect(outcomes.filter((o) => !o.ok && o.code === 'DUPLICATE')).toHaveLength(2);
  const [row] = await db.dataSource.query(
    `SELECT count(*)::int AS n FROM reports WHERE filename = 'dd__many_findings.jsonl'`,
  );
  expect(row.n).toBe(1);
});

test('a file over the size limit is refused before parsing and writes nothing', async () => {
  const before = await counts();
  const outcome = await importReport(
    db.dataSource,
    { filename: 'big.json', bytes: Buffer.alloc(2048, 32) },
    { maxBytes: 1024 },
  );
  expect(outcome).toEqual({
    ok: false,
    file: 'big.json',
    code: 'TOO_LARGE',
    error: 'the file is 2.0 KB, over the 1.0 KB import limit',
  });
  expect(await counts()).toEqual(before);
});

test('a failure in the middle of a native import rolls everything back', async () => {
  const before = await counts();
  const version = await corpusVersion(db.dataSource.manager);
  const outcome = await importReport(db.dataSource, {
    filename: 'broken-note.json',
    bytes: json({
      format: 'corpus-chat-native',
      format_version: 1,
      findings: [
        { versions: [{ title: 'fine', severity: 'low' }] },
        // A CWE id over Postgres' integer range (native ids are not filtered): the insert fails after the report row was written.
        { versions: [{ title: 'also fine', severity: 'high', cwe: [99_999_999_999] }] },
      ],
    }),
  });
  expect(outcome).toMatchObject({ ok: false, code: 'INVALID' });
  // The sentence says what was wrong and quotes the error id; the driver's text stays in the log.
  if (!outcome.ok) {
    expect(outcome.error).toMatch(
      /^the database refused the report: it holds a value .*\(error id [0-9a-f]{6}\)$/,
    );
    expect(outcome.error).not.toMatch(/out of range|timestamp|2024-02-30|invalid input/i);
  }
  expect(await counts()).toEqual(before);
  expect(await corpusVersion(db.dataSource.manager)).toBe(version);
});

test('a native report keeps versions, notes and the latest verdict, and bumps the corpus version', async () => {
  const version = await corpusVersion(db.dataSource.manager);
  const outcome = await importReport(db.dataSource, {
    filename: 'native-example.json',
    bytes: fs.readFileSync(
      path.join(REPO_ROOT, 'libs/contracts/src/native-report/native-report.example.json'),
    ),
  });
  expect(outcome).toMatchObject({ ok: true, format: 'json', findingCount: 2 });
  expect(await corpusVersion(db.dataSource.manager)).not.toBe(version);
  if (!outcome.ok) return;
  const [first] = await db.dataSource.query(
    `SELECT id FROM findings WHERE report_id = $1 ORDER BY id LIMIT 1`,
    [outcome.reportId],
  );
  const detail = await findingDetail(db.dataSource.manager, first.id);
  expect(detail).toMatchObject({
    found: true,
    finding: {
      versionCount: 2,
      current: {
        version: 2,
        origin: 'edit',
        severity: 'critical',
        editedBy: 'j.doe',
        cwe: [89],
        mitre: ['T1190'],
      },
      notes: [{ stage: 'retest', author: 'j.doe' }],
      latestVerdict: { status: 'still_open', actor: 'operator' },
    },
  });
  // HTML is stripped from the searched fields of native reports too.
  if (detail.found) expect(detail.finding.current.description).not.toContain('<code>');
});

describe('text hygiene at import', () => {
  const nuclei = (info: Record<string, unknown>): Uint8Array =>
    json({
      'template-id': `t-${Math.random()}`,
      info: { severity: 'high', ...info },
      host: 'https://h.example',
      'matched-at': 'https://h.example/x',
    });
  const storedVersion = async (reportId: number) => {
    const [row] = await db.dataSource.query(
      `SELECT fv.title, fv.description, length(fv.title)::int AS "titleLength", length(fv.description)::int AS "descriptionLength",
              length(fv.raw::text)::int AS "rawLength", r.filename, r.doc_metadata AS "docMetadata"
       FROM findings f JOIN finding_versions fv ON fv.id = f.current_version_id JOIN reports r ON r.id = f.report_id
       WHERE f.report_id = $1`,
      [reportId],
    );
    return row;
  };

  test('a 40 MB title imports capped at 1,000 characters, and the cut is recorded', async () => {
    const title = 'A'.repeat(40 * 1024 * 1024);
    const description = 'd'.repeat(250_000);
    const outcome = await importReport(db.dataSource, {
      filename: 'huge-title.json',
      bytes: nuclei({ name: title, description }),
    });
    expect(outcome).toMatchObject({ ok: true, format: 'nuclei', findingCount: 1 });
    if (!outcome.ok) return;
    const row = await storedVersion(outcome.reportId);
    expect(row.titleLength).toBe(1_000);
    expect(row.descriptionLength).toBe(100_000);
    // The verbatim entry is bounded too, so the title is nowhere stored whole.
    expect(row.rawLength).toBeLessThan(2 * 100_000 + 1_000);
    expect(row.docMetadata.truncated).toEqual(
      expect.arrayContaining([
        { finding: 0, version: 1, field: 'title', length: title.length },
        { finding: 0, version: 1, field: 'description', length: description.length },
        { finding: 0, version: 1, field: 'raw', length: title.length },
      ]),
    );
    expect(row.docMetadata.truncatedCount).toBe(3);
  }, 60_000); // parsing and hashing 40 MB takes seconds on a loaded 2-core host

  test('text within the limits is stored whole and nothing is marked', async () => {
    const title = 'T'.repeat(1_000);
    const outcome = await importReport(db.dataSource, {
      filename: 'at-limit.json',
      bytes: nuclei({ name: title, description: 'x'.repeat(100_000) }),
    });
    if (!outcome.ok) throw new Error(outcome.error);
    const row = await storedVersion(outcome.reportId);
    expect(row.title).toBe(title);
    expect(row.descriptionLength).toBe(100_000);
    expect(row.docMetadata).not.toHaveProperty('truncated');
  });

  test('bidi control characters are removed from the file name and titles', async () => {
    const rlo = '\u202E';
    const outcome = await importReport(db.dataSource, {
      filename: `/tmp/invoice${rlo}fdp.exe.json`,
      bytes: nuclei({
        name: `Reflected\u2066 XSS${rlo}\u200F\u061C in search\u2069`,
        description: `kept${rlo}`,
      }),
    });
    expect(outcome).toMatchObject({ ok: true, file: 'invoicefdp.exe.json' });
    if (!outcome.ok) return;
    const row = await storedVersion(outcome.reportId);
    expect(row.filename).toBe('invoicefdp.exe.json');
    expect(row.title).toBe('Reflected XSS in search');
  });

  test('real tags are stripped and encoded markup is kept as text, as IMPORT-RULES orders it', async () => {
    const outcome = await importReport(db.dataSource, {
      filename: 'encoded-markup.json',
      bytes: nuclei({
        name: 'Stored XSS &lt;img src=x onerror=alert(1)&gt;',
        description:
          '<p>The page echoes &lt;img src=x onerror=alert(1)&gt; back &amp; more; &amp;lt;b&amp;gt; stays text</p>',
      }),
    });
    if (!outcome.ok) throw new Error(outcome.error);
    const row = await storedVersion(outcome.reportId);
    expect(row.title).toBe('Stored XSS <img src=x onerror=alert(1)>');
    expect(row.description).toBe(
      'The page echoes <img src=x onerror=alert(1)> back & more; &lt;b&gt; stays text',
    );
  });
});
