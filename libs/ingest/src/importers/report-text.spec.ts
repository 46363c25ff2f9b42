import { type ParsedReport, scannerFinding } from './parsed-report';
import { TEXT_MAX_CHARS, TITLE_MAX_CHARS, boundReportText } from './report-text';

const report = (
  findings: ParsedReport['findings'],
  docMetadata: Record<string, unknown> = {},
): ParsedReport => ({
  format: 'nuclei',
  docMetadata,
  findings,
});

describe('boundReportText', () => {
  test('cuts titles and other text, listing each cut with its original length', () => {
    const f = scannerFinding({
      title: 't'.repeat(TITLE_MAX_CHARS + 5),
      severity: 'low',
      description: 'd'.repeat(TEXT_MAX_CHARS + 1),
      impact: 'short',
      affectedEndpoints: ['e'.repeat(TEXT_MAX_CHARS * 2), 'ok'],
      raw: { nested: [{ text: 'r'.repeat(TEXT_MAX_CHARS + 3) }] },
    });
    const out = boundReportText(
      report([scannerFinding({ title: 'fine', severity: 'info', description: '', raw: {} }), f]),
    );
    const v = out.findings[1].versions[0];
    expect(v.title).toHaveLength(TITLE_MAX_CHARS);
    expect(v.description).toHaveLength(TEXT_MAX_CHARS);
    expect(v.impact).toBe('short');
    expect(v.affectedEndpoints.map((e) => e.length)).toEqual([TEXT_MAX_CHARS, 2]);
    expect((v.raw as { nested: { text: string }[] }).nested[0].text).toHaveLength(TEXT_MAX_CHARS);
    expect(out.docMetadata['truncated']).toEqual([
      { finding: 1, version: 1, field: 'title', length: TITLE_MAX_CHARS + 5 },
      { finding: 1, version: 1, field: 'description', length: TEXT_MAX_CHARS + 1 },
      { finding: 1, version: 1, field: 'affectedEndpoints', length: TEXT_MAX_CHARS * 2 },
      { finding: 1, version: 1, field: 'raw', length: TEXT_MAX_CHARS + 3 },
    ]);
    expect(out.docMetadata['truncatedCount']).toBe(4);
  });

  test('a cut never splits a surrogate pair', () => {
    const title = 'x'.repeat(TITLE_MAX_CHARS - 1) + '😀'.repeat(3);
    const out = boundReportText(
      report([scannerFinding({ title, severity: 'low', description: '', raw: null })]),
    );
    expect(out.findings[0].versions[0].title).toBe('x'.repeat(TITLE_MAX_CHARS - 1));
  });

  test('report metadata strings are bounded too', () => {
    const out = boundReportText(report([], { tool: { name: 'n'.repeat(TEXT_MAX_CHARS + 10) } }));
    expect((out.docMetadata['tool'] as { name: string }).name).toHaveLength(TEXT_MAX_CHARS);
    expect(out.docMetadata['truncated']).toEqual([{ field: 'docMetadata', length: TEXT_MAX_CHARS + 10 }]);
  });

  test('titles lose bidi controls; a title of nothing else gets a placeholder', () => {
    const out = boundReportText(
      report([
        scannerFinding({
          title: 'a\u202Eb\u2067c\u200Ed\u061C',
          severity: 'low',
          description: 'keeps\u202E',
          raw: {},
        }),
        scannerFinding({ title: '\u202E\u202C', severity: 'low', description: '', raw: {} }),
      ]),
    );
    expect(out.findings.map((f) => f.versions[0].title)).toEqual(['abcd', '(untitled)']);
    expect(out.findings[0].versions[0].description).toBe('keeps\u202E');
    expect(out.docMetadata).not.toHaveProperty('truncated');
  });
});
