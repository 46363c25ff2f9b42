import path from 'node:path';
import { loadQuestions } from '@corpus-chat/ingest/testing';
import { matchReportNames, matchScanners, namePieces } from './report-names';

/** The file names of the questions.json corpus, as the importer stores them (base names). */
const FILES = loadQuestions().corpus.files.map((f) => path.basename(f));

describe('matchReportNames', () => {
  it.each([
    ['juice shop', ['scb__juice-shop-v12.10.2.json']],
    ['Juice-Shop', ['scb__juice-shop-v12.10.2.json']],
    ['juiceshop', ['scb__juice-shop-v12.10.2.json']],
    ['fortify', ['sdk__fortify-fpr-large.sarif']],
    ['the flawfinder report', ['dd__flawfinder.sarif']],
    ['dd__flawfinder', ['dd__flawfinder.sarif']],
    ['gosec', ['sechub__gosec_2.9.5.sarif.json']],
  ])('%s → one report', (hint, expected) => {
    expect(matchReportNames(hint, FILES)).toEqual(expected);
  });

  it('a name that fits several reports returns all of them', () => {
    const zap = matchReportNames('zap', FILES);
    expect(zap).toEqual(FILES.filter((f) => f.toLowerCase().includes('zap')));
    expect(zap.length).toBeGreaterThan(3);
    expect(matchReportNames('semgrep', FILES).sort()).toEqual([
      'dd__semgrep-oss-issue_10191.sarif.json',
      'dd__semgrepowasp-benchmark-sample.sarif',
    ]);
  });

  it('a name that fits nothing, or only filler words, returns none', () => {
    expect(matchReportNames('nessus', FILES)).toEqual([]);
    expect(matchReportNames('the report', FILES)).toEqual([]);
    expect(matchReportNames('', FILES)).toEqual([]);
  });

  it('a word may occur inside a piece of the name (IMPORT-RULES: all its words occur in the file name)', () => {
    expect(matchReportNames('owaspzap mock', FILES)).toEqual(['sechub__owaspzap-mock-large.sarif.json']);
    expect(matchReportNames('COVERITY', [...FILES, 'cov__Coverity-scan.json'])).toEqual([
      'cov__Coverity-scan.json',
    ]);
  });

  it("matchScanners: the hint when some report's scanner name contains it, case-insensitively", () => {
    const reports = [
      { docMetadata: { tool: { name: 'Semgrep OSS' } } },
      { docMetadata: { tool: null } },
      { docMetadata: {} },
    ];
    expect(matchScanners('semgrep', reports)).toEqual(['semgrep']);
    expect(matchScanners('the Semgrep scanner', reports)).toEqual(['semgrep']);
    expect(matchScanners('gosec', reports)).toEqual([]);
  });

  it('namePieces ignores case and separators', () => {
    expect(namePieces('scb__juice-shop-v12.10.2.json')).toEqual([
      'scb',
      'juice',
      'shop',
      'v12',
      '10',
      '2',
      'json',
    ]);
  });
});
