import fs from 'node:fs';
import { corpusPath } from '../testing/shared-corpus';
import { parseReportFile, type ParsedFile } from './parse-report';

const parseFile = (relative: string): Promise<ParsedFile> =>
  parseReportFile(fs.readFileSync(corpusPath(relative)));
const parseText = (text: string): Promise<ParsedFile> => parseReportFile(Buffer.from(text, 'utf8'));
const severityCounts = (r: ParsedFile) =>
  r.findings.reduce<Record<string, number>>(
    (acc, f) => ({ ...acc, [f.versions[0].severity]: (acc[f.versions[0].severity] ?? 0) + 1 }),
    {},
  );
const versions = (r: ParsedFile) => r.findings.map((f) => f.versions[0]);

describe('CSV exports from the shared corpus (IMPORT-RULES, CSV exports)', () => {
  test('Nessus "all columns" CSV: Risk None is info; CWE:N in XREF; host:port/protocol', async () => {
    const r = await parseFile('scans/csv/dd__nessus_many_vuln2-all.csv');
    expect(r).toMatchObject({ format: 'csv', target: ['52.208.101.182'], scannedAt: null });
    expect(r.docMetadata).toMatchObject({ csvLayout: 'nessus', delimiter: ',', unmappedSeverities: 0 });
    expect(severityCounts(r)).toEqual({ info: 29, medium: 1 });
    expect(versions(r).filter((v) => v.cwe.length)).toMatchObject([
      { title: 'SSL Certificate Signed Using Weak Hashing Algorithm (Known CA)', cwe: [310] },
    ]);
    expect(r.findings[0].identity).toEqual(['52.208.101.182', '10107', '80', 'tcp']);
    expect(versions(r)[0]).toMatchObject({
      title: 'HTTP Server Type and Version',
      affectedEndpoints: ['52.208.101.182:80/tcp'],
    });
    // Synopsis + Description; Plugin Output is evidence, not searched text.
    expect(versions(r)[0].description).toMatch(
      /^A web server is running on the remote host\.\nThis plugin attempts/,
    );
    expect(versions(r)[0].description).not.toMatch(/The remote web server type is/);
  });

  test('Tenable VM CSV: blank header columns ignored, padding rows skipped, Risk (not Risk Factor) is the severity', async () => {
    const r = await parseFile('scans/csv/dd__tenable_many_vuln.csv');
    expect(r.docMetadata).toMatchObject({ csvLayout: 'nessus' });
    expect(r.findings).toHaveLength(20);
    expect(severityCounts(r)).toEqual({ high: 12, medium: 8 });
    const first = r.findings[0].versions[0];
    expect(first).toMatchObject({ title: 'Amazon Linux 2 : kernel (ALAS-2023-2050)', severity: 'high' });
    expect(first.raw).toMatchObject({ 'Risk Factor': 'Medium', Risk: 'High' });
    expect(Object.keys(first.raw as object)).not.toContain('');
    expect(r.target).toEqual([
      'ip-127-0-0-1.us-west-2.compute.internal',
      'ip-192-168-1-110.us-west-2.compute.internal',
    ]);
  });

  test('OpenVAS CSV: Severity class, Summary and Impact, identity without Result ID', async () => {
    const r = await parseFile('scans/csv/dd__openvas_report_using_CVE.csv');
    expect(r.docMetadata).toMatchObject({ csvLayout: 'openvas' });
    expect(severityCounts(r)).toEqual({ high: 21, medium: 22 });
    expect(r.findings[0].identity).toEqual(['45.33.32.156', 'CVE-2021-26690', '', '']);
    expect(versions(r)[0].description).toMatch(/^The host carries the product/);
  });

  test('DefectDojo generic CSV: a quoted field open at the end of the file ends there; CweId 0 is ignored', async () => {
    const r = await parseFile('scans/csv/dd__generic_report_kev_cvssv4.csv');
    expect(r.docMetadata).toMatchObject({ csvLayout: 'defectdojo', suppressed: 0 });
    expect(versions(r)).toMatchObject([
      {
        title: 'Test finding',
        severity: 'low',
        cwe: [],
        description: 'Test finding description',
        affectedEndpoints: ['https://192.168.1.1/'],
      },
    ]);
    expect((versions(r)[0].raw as Record<string, string>)['CVSSV3']).toBe(
      'CVSS:3.1/AV:N/AC:L/PR:H/UI:R/S:C/C:L/I:L/A:N"\n',
    );
    expect(r.findings[0].identity).toEqual(['Test finding', 'https://192.168.1.1/']);
    expect(r.target).toBeNull();
  });

  test('Alert Logic CSV behind a byte-order mark: the Vulnerability Key is the identity', async () => {
    const r = await parseFile('edge/csv__dd__alertlogic-utf8-bom.csv');
    expect(r.docMetadata).toMatchObject({ csvLayout: 'alertlogic' });
    expect(severityCounts(r)).toEqual({ critical: 2, high: 2, medium: 1, low: 1, info: 1 });
    expect(r.findings[0].identity).toEqual([
      '/dc/host/BBBB2222-3333-4444-5555-666666666666/vulnerability/2b3c4d5e6f7a8b9c0d1e',
    ]);
    expect(versions(r)[0].affectedEndpoints).toEqual(['app-server-01.example.com:8080/TCP']);
    expect(versions(r).find((v) => v.title === 'TCP Timestamp Response')?.affectedEndpoints).toEqual([
      'edge-router.example.com',
    ]);
  });

  test('Tenable Security Center CSV followed by hundreds of empty rows: only the 4 findings; CWE #N', async () => {
    const r = await parseFile('edge/csv__dd__nessus_many_vuln-blank-rows.csv');
    expect(r.docMetadata).toMatchObject({ csvLayout: 'tenable-sc' });
    expect(severityCounts(r)).toEqual({ medium: 4 });
    expect(
      versions(r).find((v) => v.title === 'SSL Certificate Signed Using Weak Hashing Algorithm')?.cwe,
    ).toEqual([310]);
    expect(r.findings[0].identity).toEqual(['10.1.1.1', '35291', '443', 'tcp']);
  });
});

describe('CSV rules on small exports', () => {
  test('a ;-delimited Tenable VM findings export: dotted columns, Fixed rows skipped, the export id first', async () => {
    const r = await parseText(
      [
        'id;asset.id;definition.id;definition.name;severity;definition.severity;state;port;protocol;definition.cwe;definition.synopsis',
        'f-1;Asset-A/;19506;Scan info;Info;High;Active;0;TCP;;syn',
        ';asset-b;57582;Self-signed cert;Medium;Low;Reopened;443;TCP;"192, 330, 400, 770";s',
        'f-3;asset-c;1;Gone;High;High;FIXED;22;TCP;;',
        ';asset-d;2;Odd;Urgent;High;Active;22;UDP;0;',
      ].join('\r\n'),
    );
    expect(r.docMetadata).toMatchObject({ csvLayout: 'tenable-vm', delimiter: ';', unmappedSeverities: 1 });
    expect(versions(r)).toMatchObject([
      { title: 'Scan info', severity: 'info', affectedEndpoints: ['Asset-A/'], description: 'syn' },
      {
        title: 'Self-signed cert',
        severity: 'medium',
        cwe: [192, 330, 400, 770],
        affectedEndpoints: ['asset-b:443/TCP'],
      },
      { title: 'Odd', severity: 'info', cwe: [] },
    ]);
    expect(r.findings.map((f) => f.identity)).toEqual([
      ['f-1'],
      ['asset-b', '57582', '443', 'tcp'],
      ['asset-d', '2', '22', 'udp'],
    ]);
    expect(r.target).toEqual(['asset-a', 'asset-b', 'asset-d']);
  });

  test('a TAB-delimited OpenVAS export: False Positive suppressed, Log is info', async () => {
    const r = await parseText(
      [
        'IP\tPort\tPort Protocol\tSeverity\tNVT Name\tSummary\tNVT OID\tImpact',
        '10.0.0.1\t80\ttcp\tLog\tOS detection\ts\t1.3.6.1\t',
        '10.0.0.1\t80\ttcp\tFalse Positive\tFP\ts\t1.3.6.2\t',
      ].join('\n'),
    );
    expect(r.docMetadata).toMatchObject({ csvLayout: 'openvas', delimiter: '\t', suppressed: 1 });
    expect(versions(r)).toMatchObject([{ title: 'OS detection', severity: 'info', impact: null }]);
  });

  test('DefectDojo generic: FalsePositive True suppressed, CweIds, HTML stripped, a stray quote kept', async () => {
    const r = await parseText(
      [
        'Date,Title,CweId,CweIds,Url,Severity,Description,Impact,FalsePositive',
        '01/01/2024,XSS in <b>search</b>,79,"80, 0",https://x/s,HIGH,Reflected 5" payload,&lt;script&gt; runs,False',
        '01/01/2024,Not real,89,,https://x/t,Critical,d,,TRUE',
        '01/01/2024,  ,89,,https://x/u,Critical,untitled rows are no findings,,False',
      ].join('\n'),
    );
    expect(r.docMetadata).toMatchObject({ csvLayout: 'defectdojo', suppressed: 1 });
    expect(versions(r)).toMatchObject([
      {
        title: 'XSS in  search',
        severity: 'high',
        cwe: [79, 80],
        description: 'Reflected 5" payload',
        impact: '<script> runs',
        affectedEndpoints: ['https://x/s'],
      },
    ]);
  });

  test('header cells: surrounding space and case ignored, the first of two same-named columns counts', async () => {
    const r = await parseText(' plugin id ,RISK,Host,Name,Name,Port\n1,High,h,First,Second,0\n');
    expect(versions(r)).toMatchObject([{ title: 'First', severity: 'high', affectedEndpoints: ['h'] }]);
  });

  test('a header with no data rows is a report with no findings', async () => {
    const r = await parseText('Vulnerability,Severity,Asset Name,Vulnerability ID\n');
    expect(r).toMatchObject({ format: 'csv', findings: [], docMetadata: { csvLayout: 'alertlogic' } });
  });

  test('text whose first record matches no layout is unrecognised (title lines before the header too)', async () => {
    for (const text of [
      'a,b,c\n1,"x, y",3\n',
      'Vulnerability report\nPlugin ID,Risk,Host,Name\n1,High,h,n\n',
      'just some words',
    ]) {
      await expect(parseText(text)).rejects.toMatchObject({
        code: 'UNRECOGNISED_FORMAT',
        message: expect.stringMatching(/^unrecognised format: text whose first line/),
      });
    }
  });

  test('bytes that are not UTF-8 are not read as CSV', async () => {
    await expect(
      parseReportFile(Buffer.from([0x50, 0x6c, 0x75, 0x67, 0xff, 0xfe, 0x2c, 0x0a])),
    ).rejects.toMatchObject({ code: 'UNRECOGNISED_FORMAT' });
  });
});
