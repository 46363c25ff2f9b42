/**
 * Finding identity, report target and recorded scan time per format (IMPORT-RULES.md "Finding
 * identity and scan comparison"), read from real files of shared/corpus.
 */
import 'reflect-metadata';
import fs from 'node:fs';
import { corpusPath } from '../testing/shared-corpus';
import { earliestScanTime, scanTime, targetSet } from './identity';
import { parseReportFile, type ParsedFile } from './parse-report';

const parseCorpusFile = (relative: string): Promise<ParsedFile> =>
  parseReportFile(fs.readFileSync(corpusPath(relative)));
const identities = (r: ParsedFile): string[][] => r.findings.map((f) => f.identity ?? []);
const distinct = (ids: string[][]): number => new Set(ids.map((i) => JSON.stringify(i))).size;

describe('identity building blocks', () => {
  test('scan times are read in UTC: offsets applied, zone words ignored, no offset read as UTC', () => {
    expect(scanTime('Tue, 23 Nov 2021 22:36:55')).toBe('2021-11-23T22:36:55.000Z');
    expect(scanTime('Fri Dec 13 10:47:50 CET 2013')).toBe('2013-12-13T10:47:50.000Z');
    expect(scanTime('Thu, 1 Feb 2024 10:00:00 +0200')).toBe('2024-02-01T08:00:00.000Z');
    expect(scanTime('2022-09-09T21:18:55.271592+02:00')).toBe('2022-09-09T19:18:55.271Z');
    expect(scanTime('2024-03-05T10:57:37.362063893Z')).toBe('2024-03-05T10:57:37.362Z');
    expect(scanTime('2023-12-12 21:26:55')).toBe('2023-12-12T21:26:55.000Z');
    for (const none of ['', '   ', 'not a date', null, undefined]) expect(scanTime(none)).toBeNull();
  });
  test('target names are trimmed, lower-cased, lose one trailing slash, and are unique and sorted', () => {
    expect(targetSet([' HTTP://Www.Example.com/ ', 'http://www.example.com', 'b.example', ''])).toEqual([
      'b.example',
      'http://www.example.com',
    ]);
    expect(targetSet(['', null])).toBeNull();
  });
});

describe('ZAP', () => {
  const itsecgames = (version: string) =>
    parseCorpusFile(`scans/zap/bcgov-pipeline-templates__zap-${version}-itsecgames.json`);

  test('site name and pluginid: the same check keeps its identity across alertRef and name changes', async () => {
    const [v211, v212] = [await itsecgames('2.11.0'), await itsecgames('2.12.0')];
    const clickjacking = (r: ParsedFile) => r.findings.find((f) => f.identity?.[1] === '10020');
    expect(clickjacking(v211)?.versions[0].title).toBe('X-Frame-Options Header Not Set');
    expect(clickjacking(v212)?.versions[0].title).toBe('Missing Anti-clickjacking Header');
    expect(clickjacking(v211)?.identity).toEqual(['http://www.itsecgames.com', '10020']);
    expect(clickjacking(v212)?.identity).toEqual(clickjacking(v211)?.identity);
  });
  test('one pluginid raising several alerts gives them one identity (a multiset)', async () => {
    const v214 = await itsecgames('2.14.0');
    expect(v214.findings).toHaveLength(12);
    expect(identities(v214).filter((i) => i[1] === '90005')).toHaveLength(4);
    expect(distinct(identities(v214))).toBe(9);
  });
  test('target is the set of site names; scan time is `@generated` read as UTC', async () => {
    const v212 = await itsecgames('2.12.0');
    expect(v212.target).toEqual(['http://www.itsecgames.com']);
    expect(v212.scannedAt).toBe('2023-07-04T20:03:01.000Z');
  });
  test('XML report: site `name` attribute and root `generated`', async () => {
    const r = await parseCorpusFile('scans/zap/dd__zap-results-first-scan.xml');
    expect(r.target).toEqual(['http://bodgeit.securecodebox-demo.svc:8080']);
    expect(r.scannedAt).toBe('2021-06-20T09:30:00.000Z');
    expect(r.findings[0].identity).toEqual(['http://bodgeit.securecodebox-demo.svc:8080', '10031']);
  });
});

describe('SARIF', () => {
  test('tool, rule, then `fingerprints` entries as key=value', async () => {
    const r = await parseCorpusFile('scans/sarif/dd__flawfinder.sarif');
    expect(r.findings[0].identity).toEqual([
      'Flawfinder',
      'FF1048',
      'contextHash/v1=e6c1ad2b1d96ffc4035ed8df070600566ad240b8ded025dac30620f3fd4aa9fd',
    ]);
    expect(r.target).toBeNull();
    expect(r.docMetadata['toolNames']).toEqual(['Flawfinder']);
  });
  test('without `fingerprints`: `partialFingerprints` entries, sorted', async () => {
    const r = await parseCorpusFile('scans/sarif/dd__codeQL-output.sarif');
    expect(r.findings[0].identity).toEqual([
      'CodeQL',
      'py/empty-except',
      'primaryLocationLineHash=9cbc869fbfffeb60:1',
      'primaryLocationStartColumnFingerprint=0',
    ]);
  });
  test('without fingerprints: the first location’s URI and start line', async () => {
    const r = await parseCorpusFile('scans/sarif/dd__spotbugs.sarif');
    expect(r.findings[0].identity).toEqual([
      'SpotBugs',
      'DMI_HARDCODED_ABSOLUTE_FILENAME',
      'Boot.java',
      '23',
    ]);
  });
  test('target is the set of `versionControlProvenance` repository URIs, normalised', async () => {
    const r = await parseCorpusFile('scans/sarif/dd__bash-report.sarif');
    expect(r.target).toEqual(['https://github.com/damiencarol/django-defectdojo']);
    expect(r.scannedAt).toBeNull();
  });
});

describe('Nuclei', () => {
  test('template, matcher and matched-at: one template’s results per matcher stay apart', async () => {
    const r = await parseCorpusFile('scans/nuclei/scb__example-com-test.jsonl');
    expect(r.findings).toHaveLength(27);
    expect(r.findings[0].identity).toEqual([
      'http-missing-security-headers',
      'content-security-policy',
      'https://example.com',
    ]);
    const templateAndUrl = new Set(r.findings.map((f) => `${f.identity?.[0]} ${f.identity?.[2]}`)).size;
    expect(distinct(identities(r))).toBeGreaterThan(templateAndUrl);
  });
  test('target is the set of hosts; scan time the earliest result timestamp, in UTC', async () => {
    const r = await parseCorpusFile('scans/nuclei/scb__example-com-test.jsonl');
    expect(r.target).toEqual(['https://example.com']);
    expect(r.scannedAt).toBe('2022-09-09T19:18:55.271Z');
  });
});

describe('Trivy', () => {
  test('vulnerability: target, VulnerabilityID, package and installed version; target ArtifactName', async () => {
    const r = await parseCorpusFile('scans/trivy/dd__scheme_2_many_vulns.json');
    expect(r.findings[0].identity).toEqual([
      '',
      'teamdojo:latest (alpine 3.9.4)',
      'CVE-2020-15999',
      'freetype',
      '2.9.1-r2',
    ]);
    expect(r.target).toEqual(['teamdojo:latest']);
  });
  test('misconfiguration by ID, secret by RuleID and StartLine', async () => {
    const r = await parseCorpusFile('scans/trivy/dd__misconfigurations_and_secrets.json');
    expect(identities(r)).toEqual(
      expect.arrayContaining([
        ['', 'dockerfile', 'DS002'],
        ['', 'dockerfile', 'github-pat', '24'],
        ['', 'secret.txt', 'github-pat', '1'],
      ]),
    );
  });
  test('Kubernetes report: the resource as Namespace/Kind/Name comes first; an empty ClusterName names no target', async () => {
    const r = await parseCorpusFile('edge/trivy__scb__k8s-scan-results-large.json');
    expect(identities(r)).toContainEqual(['kube-system/Deployment/coredns', 'deployment/coredns', 'KSV011']);
    expect(r.target).toBeNull();
  });
  test('the legacy list names no target and no scan time', async () => {
    const r = await parseCorpusFile('scans/trivy/dd__legacy_many_vulns.json');
    expect(r.target).toBeNull();
    expect(r.scannedAt).toBeNull();
    expect(r.findings[0].identity?.[0]).toBe('');
  });
});

describe('recorded scan times (IMPORT-RULES "a report\'s recorded scan time")', () => {
  test('ctime-like times are read as UTC, a zone word ignored', () => {
    expect(scanTime('Sat Sep 13 22:39:44 CEST 2014')).toBe('2014-09-13T22:39:44.000Z');
    expect(scanTime('Mon Jul  1 11:33:11 2013')).toBe('2013-07-01T11:33:11.000Z');
  });
  test('ISO 8601 with an offset is converted to UTC; without one it is read as UTC', () => {
    expect(scanTime('2021-03-12T12:34:30.12031+00:00')).toBe('2021-03-12T12:34:30.120Z');
    expect(scanTime('2024-05-02T10:00:00+02:00')).toBe('2024-05-02T08:00:00.000Z');
    expect(scanTime('2024-05-02T10:00:00-0530')).toBe('2024-05-02T15:30:00.000Z');
    expect(scanTime('2024-05-02 10:00:00')).toBe('2024-05-02T10:00:00.000Z');
  });
  test('anything else is no time', () => {
    for (const bad of ['', 'yesterday', 'Mon Foo 1 11:33:11 2013', '2024-02-30T10:00:00Z', null, 42])
      expect(scanTime(bad)).toBeNull();
  });
  test('the earliest of several, ignoring unreadable ones', () => {
    expect(earliestScanTime(['Thu May  2 07:30:00 2024', '2024-05-02T09:00:00+02:00', 'n/a', null])).toBe(
      '2024-05-02T07:00:00.000Z',
    );
    expect(earliestScanTime([])).toBeNull();
  });
});
