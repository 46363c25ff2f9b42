import fs from 'node:fs';
import { corpusPath } from '../testing/shared-corpus';
import { parseReportFile, type ParsedFile } from './parse-report';

const parseFile = (relative: string): Promise<ParsedFile> =>
  parseReportFile(fs.readFileSync(corpusPath(relative)));
const parseText = (xml: string): Promise<ParsedFile> => parseReportFile(Buffer.from(xml, 'utf8'));
const refusal = (xml: string) =>
  parseText(xml).then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: { code: string; message: string }) => ({ code: e.code, message: e.message }),
  );
const severityCounts = (r: ParsedFile) =>
  r.findings.reduce<Record<string, number>>(
    (acc, f) => ({ ...acc, [f.versions[0].severity]: (acc[f.versions[0].severity] ?? 0) + 1 }),
    {},
  );

/** A Burp 2.x export with the given `issue` elements. */
const burp = (...issues: string[]) =>
  `<?xml version="1.0"?>\n<issues burpVersion="2023.1" exportTime="Tue Feb 14 09:30:00 CET 2023">${issues.join('')}</issues>`;
const issue = (fields: Record<string, string>) =>
  `<issue>${Object.entries({
    type: '1049088',
    name: 'SQL injection',
    host: 'https://shop.example/',
    path: '/a',
    location: '/a [q parameter]',
    severity: 'High',
    confidence: 'Firm',
    ...fields,
  })
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join('')}</issue>`;

describe('Burp Suite XML (IMPORT-RULES, Burp)', () => {
  test('one issue type at three locations is three findings, with the fields the rules map', async () => {
    const r = await parseFile('scans/burp/dd__one_finding.xml');
    expect(r.format).toBe('burp');
    expect(r.findings).toHaveLength(3);
    const v = r.findings[0].versions[0];
    expect(v).toMatchObject({
      title: 'SQL injection',
      severity: 'high',
      affectedEndpoints: ['http://bwa/bodgeit/basket.jsp'],
      cwe: [],
    });
    expect(v.description).toMatch(/^The +b_id +cookie appears to be vulnerable to SQL injection attacks/);
    expect(v.impact).toMatch(/^SQL injection vulnerabilities arise when user-controllable data/);
    // HTML of the issue texts is stripped (`<br><br>` in issueBackground).
    expect(v.impact).not.toMatch(/<br>/);
    expect(r.findings.map((f) => f.identity)).toEqual([
      ['http://bwa', '/bodgeit/basket.jsp', '/bodgeit/basket.jsp [b_id cookie]', '1049088'],
      expect.arrayContaining(['1049088']),
      expect.arrayContaining(['1049088']),
    ]);
    expect(new Set(r.findings.map((f) => JSON.stringify(f.identity))).size).toBe(3);
    // A zone word (CEST) is ignored.
    expect(r).toMatchObject({ target: ['http://bwa'], scannedAt: '2014-09-13T22:39:44.000Z' });
    expect(r.docMetadata).toMatchObject({
      tool: { name: 'Burp Suite', version: '1.6.05' },
      suppressed: 0,
      unmappedSeverities: 0,
    });
  });

  test('CWE ids come from every CWE-N link of vulnerabilityClassifications', async () => {
    const r = await parseFile('scans/burp/dd__one_finding_with_cwe.xml');
    expect(r.findings.map((f) => f.versions[0])).toMatchObject([
      { title: 'Cacheable HTTPS response', severity: 'info', cwe: [524, 525] },
    ]);
    expect(r).toMatchObject({ target: ['https://example.com'], scannedAt: '2021-01-27T22:43:35.000Z' });
  });

  test('the large export: every issue, severities as Burp rates them, extension issues told apart by name', async () => {
    const r = await parseFile('scans/burp/dd__issue4399-large.xml');
    expect(r.findings).toHaveLength(441);
    expect(severityCounts(r)).toEqual({ high: 24, medium: 3, low: 343, info: 71 });
    expect(r.findings.filter((f) => f.versions[0].cwe.includes(79))).toHaveLength(13);
    const extension = r.findings.filter((f) => f.identity?.[3] === '134217728');
    expect(extension.length).toBeGreaterThan(5);
    for (const f of extension)
      expect(f.identity).toEqual([
        expect.any(String),
        expect.any(String),
        expect.any(String),
        '134217728',
        f.versions[0].title,
      ]);
    for (const f of r.findings.filter((x) => x.identity?.[3] !== '134217728'))
      expect(f.identity).toHaveLength(4);
    expect(r.target).toEqual(['http://testphp.vulnweb.com']);
  });

  test('an issue whose response element is empty imports', async () => {
    const r = await parseFile('edge/burp__dd__one_finding_with_blank_response.xml');
    expect(r.findings.map((f) => f.versions[0].severity)).toEqual(['high']);
  });

  test('false positives are suppressed; confidence changes nothing; unknown severities are info and counted', async () => {
    const r = await parseText(
      burp(
        issue({ severity: 'False positive' }),
        issue({ severity: ' medium ', confidence: 'Tentative', path: '/b', location: '/b' }),
        issue({
          severity: 'Severe',
          path: '/c',
          location: '/c',
          issueDetail: '&lt;p&gt;Found &amp;amp; confirmed&lt;/p&gt;',
        }),
      ),
    );
    expect(r.docMetadata).toMatchObject({ suppressed: 1, unmappedSeverities: 1 });
    expect(r.findings.map((f) => f.versions[0])).toMatchObject([
      { severity: 'medium', affectedEndpoints: ['https://shop.example//b'] },
      { severity: 'info', description: 'Found & confirmed' },
    ]);
    // Host names are lower-cased and lose one trailing slash in identities and targets.
    expect(r.findings[0].identity).toEqual(['https://shop.example', '/b', '/b', '1049088']);
    expect(r).toMatchObject({ target: ['https://shop.example'], scannedAt: '2023-02-14T09:30:00.000Z' });
  });

  test('an export without issues has no findings; an <issues> root that is not Burp is refused', async () => {
    expect((await parseText(burp())).findings).toEqual([]);
    expect(await refusal('<issues><item>x</item></issues>')).toMatchObject({
      code: 'UNRECOGNISED_FORMAT',
      message: expect.stringMatching(/^unrecognised format: XML with root element <issues>/),
    });
    expect(
      await refusal(fs.readFileSync(corpusPath('edge/burp__dd__dastardly-junit-not-burp-xml.xml'), 'utf8')),
    ).toMatchObject({
      code: 'UNRECOGNISED_FORMAT',
      message: expect.stringMatching(/<testsuites>/),
    });
  });

  test('an external entity in the DOCTYPE is never read', async () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE issues [<!ENTITY xxe SYSTEM "file:///etc/hostname">]>${burp(issue({ name: '&xxe;' })).replace(/^<\?xml[^>]*>\n/, '')}`;
    expect(await refusal(xml)).toMatchObject({
      code: 'INVALID',
      message: expect.stringMatching(/External entities are not supported/),
    });
  });
});
