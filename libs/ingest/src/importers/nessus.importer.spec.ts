import fs from 'node:fs';
import { corpusPath } from '../testing/shared-corpus';
import { parseReportFile, type ParsedFile } from './parse-report';

const parseFile = (relative: string): Promise<ParsedFile> =>
  parseReportFile(fs.readFileSync(corpusPath(relative)));
const parseText = (xml: string): Promise<ParsedFile> => parseReportFile(Buffer.from(xml, 'utf8'));
const severityCounts = (r: ParsedFile) =>
  r.findings.reduce<Record<string, number>>(
    (acc, f) => ({ ...acc, [f.versions[0].severity]: (acc[f.versions[0].severity] ?? 0) + 1 }),
    {},
  );
const byIdentity = (r: ParsedFile, ...identity: string[]) =>
  r.findings.find((f) => JSON.stringify(f.identity) === JSON.stringify(identity));

/** A .nessus v2 file with one report of the given hosts. */
const nessus = (...hosts: string[]) =>
  `<?xml version="1.0" ?><NessusClientData_v2><Policy><policyName>p</policyName></Policy><Report name="r">${hosts.join('')}</Report></NessusClientData_v2>`;
const host = (name: string, start: string, ...items: string[]) =>
  `<ReportHost name="${name}"><HostProperties><tag name="HOST_START">${start}</tag></HostProperties>${items.join('')}</ReportHost>`;
const item = (attrs: Record<string, string>, body = '') =>
  `<ReportItem ${Object.entries({
    port: '22',
    svc_name: 'ssh',
    protocol: 'tcp',
    pluginID: '1',
    pluginName: 'Plugin',
    pluginFamily: 'F',
    ...attrs,
  })
    .map(([k, v]) => `${k}="${v}"`)
    .join(' ')}>${body}</ReportItem>`;

describe('Nessus .nessus v2 (IMPORT-RULES, Nessus)', () => {
  test('every ReportItem is a finding, informational plugins included; the pluginName attribute is the title', async () => {
    const r = await parseFile('scans/nessus/dd__nessus_v_unknown.nessus');
    expect(r.format).toBe('nessus');
    expect(r.findings).toHaveLength(296);
    expect(severityCounts(r)).toEqual({ medium: 23, low: 7, info: 266 });
    expect(r.target).toHaveLength(7);
    expect(r.scannedAt).toBe('2013-07-01T11:33:11.000Z');
    // The one item whose plugin_name element says `dummy`.
    const dummy = r.findings.filter(
      (f) => f.identity?.[1] === '11219' && f.versions[0].description === 'dummy\ndummy',
    );
    expect(dummy.map((f) => f.versions[0].title)).toEqual(['Nessus SYN scanner']);
    const scanInfo = r.findings.find((f) => f.identity?.[1] === '19506');
    expect(scanInfo?.versions[0]).toMatchObject({
      title: 'Nessus Scan Information',
      severity: 'info',
      impact: null,
    });
    expect(scanInfo?.versions[0].description).toMatch(
      /^Information about the Nessus scan\.\nThis script displays/,
    );
    expect(scanInfo?.versions[0].description).not.toMatch(/Scanner IP/); // plugin_output is evidence, not searched text
  });

  test('critical items, CWE from cwe elements and CWE xrefs, CVSS v3 kept', async () => {
    const r = await parseFile('scans/nessus/dd__nessus_with_cvssv3.nessus');
    expect(r.findings).toHaveLength(49);
    expect(severityCounts(r)).toEqual({ critical: 2, high: 10, medium: 13, low: 1, info: 23 });
    expect(r.findings.filter((f) => f.versions[0].cwe.includes(20))).toHaveLength(8);
    expect(r.findings.filter((f) => f.versions[0].cwe.includes(264))).toHaveLength(6);
    expect(r.findings.some((f) => f.versions[0].cvss?.vector?.startsWith('CVSS:3.0/'))).toBe(true);
    expect(r).toMatchObject({ target: ['testphp.vulnweb.com'], scannedAt: '2022-03-23T14:31:51.000Z' });
  });

  test('a Tenable WAS export: URL hosts, xref CWE:N, times with a UTC offset', async () => {
    const r = await parseFile('scans/nessus/dd__nessus_was_many_vuln.nessus');
    expect(r.findings).toHaveLength(5);
    const xss = byIdentity(r, 'http://google.com', '98104', '80', 'tcp');
    expect(xss?.versions[0]).toMatchObject({
      title: 'Cross-Site Scripting (XSS)',
      severity: 'high',
      cwe: [79],
      affectedEndpoints: ['http://google.com/:80/TCP'],
    });
    expect(r).toMatchObject({ target: ['http://google.com'], scannedAt: '2021-03-12T12:34:30.120Z' });
  });

  test('a file that is almost all policy has its one finding; a WAS container without items has none', async () => {
    const big = await parseFile('edge/nessus__dd__issue_6992-1.3MB-one-finding.nessus');
    expect(big.findings.map((f) => f.versions[0].severity)).toEqual(['medium']);
    expect(big.findings[0].versions[0].affectedEndpoints).toEqual(['testphp.vulnweb.com:80/tcp']);
    const empty = await parseFile('edge/nessus__dd__nessus_was_no_vuln.nessus');
    expect(empty.findings).toEqual([]);
    expect(empty.target).toEqual(['http://google.com']);
  });

  test('the severity attribute wins over risk_factor, which is read only without a valid attribute', async () => {
    const r = await parseText(
      nessus(
        host(
          'Host-B.example',
          '2024-05-02T10:00:00+02:00',
          item(
            { severity: '1', pluginID: '10' },
            '<risk_factor>Critical</risk_factor><synopsis>S</synopsis><description>D</description>',
          ),
          item({ pluginID: '11' }, '<risk_factor> high </risk_factor>'),
          item({ severity: '9', pluginID: '12' }, '<risk_factor>None</risk_factor>'),
          item(
            { severity: 'x', pluginID: '13', port: '0', protocol: 'TCP' },
            '<risk_factor>Unknown</risk_factor><plugin_name>Other</plugin_name>',
          ),
        ),
        host('a.example', 'Thu May  2 07:30:00 2024'),
      ),
    );
    expect(r.findings.map((f) => f.versions[0])).toMatchObject([
      { severity: 'low', description: 'S\nD', affectedEndpoints: ['Host-B.example:22/tcp'] },
      { severity: 'high' },
      { severity: 'info' },
      { severity: 'info', affectedEndpoints: ['Host-B.example'] },
    ]);
    expect(r.docMetadata['unmappedSeverities']).toBe(1);
    expect(r.findings[3].identity).toEqual(['host-b.example', '13', '0', 'tcp']);
    // A host without items still names a target; the earliest HOST_START (in UTC) is the scan time.
    expect(r.target).toEqual(['a.example', 'host-b.example']);
    expect(r.scannedAt).toBe('2024-05-02T07:30:00.000Z');
  });

  test('.nessus v1 is refused naming the version', async () => {
    await expect(
      parseText('<?xml version="1.0"?><NessusClientData><Report/></NessusClientData>'),
    ).rejects.toMatchObject({
      code: 'UNSUPPORTED_VERSION',
      message: expect.stringMatching(/^format Nessus v1 is not supported/),
    });
  });
});
