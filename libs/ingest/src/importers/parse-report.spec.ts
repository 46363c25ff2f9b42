import 'reflect-metadata';
import { parseReportFile, type ParsedFile } from './parse-report';
import { securitySeverity } from './sarif.importer';
import { cweId, stripHtml } from './text';

const bytes = (s: string): Uint8Array => Buffer.from(s, 'utf8');
const parse = (s: string | object, maxBytes?: number): Promise<ParsedFile> =>
  parseReportFile(bytes(typeof s === 'string' ? s : JSON.stringify(s)), { maxBytes });
const refusal = async (s: string | object, maxBytes?: number) => {
  try {
    await parse(s, maxBytes);
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('text rules', () => {
  test('HTML tags become spaces, then entities are decoded (IMPORT-RULES "every format")', () => {
    expect(stripHtml('<p>a&amp;b</p><!-- c -->&lt;script&gt; &#39;x&#39;')).toBe("a&b  <script> 'x'");
    expect(stripHtml('x<br/>y')).toBe('x y');
    expect(stripHtml('1 < 2')).toBe('1 < 2');
    expect(stripHtml('1 &lt; 2 &amp;&amp; 3 &gt; 2')).toBe('1 < 2 && 3 > 2');
  });
  test('encoded markup is kept as the text the report shows (it is data, rendered as text)', () => {
    expect(stripHtml('see &lt;img src=x onerror=alert(1)&gt; here')).toBe(
      'see <img src=x onerror=alert(1)> here',
    );
    expect(stripHtml('<b>real</b> &lt;b&gt;shown&lt;/b&gt;')).toBe('real  <b>shown</b>');
    expect(stripHtml('&amp;lt;b&amp;gt;')).toBe('&lt;b&gt;');
  });
  test('CWE ids: leading id of a string, positive integers only', () => {
    expect(cweId('CWE-200 Information Exposure')).toBe(200);
    expect(cweId('CWE-798: Use of Hard-coded Credentials')).toBe(798);
    expect(cweId('cwe-79')).toBe(79);
    expect(cweId(89)).toBe(89);
    // Over Postgres' integer range: no CWE, and no longer a database error at import.
    for (const bad of ['nvd-cve-other', '-1', '0', -1, 0, 1.5, null, 'CWE-99999999999', 2 ** 31])
      expect(cweId(bad)).toBeNull();
  });
  test('security-severity bands and words', () => {
    expect(securitySeverity(9.0)).toBe('critical');
    expect(securitySeverity('8.9')).toBe('high');
    expect(securitySeverity(7)).toBe('high');
    expect(securitySeverity('4.0')).toBe('medium');
    expect(securitySeverity(0.1)).toBe('low');
    expect(securitySeverity(0)).toBe('info');
    expect(securitySeverity('HIGH')).toBe('high');
    expect(securitySeverity('Critical')).toBe('critical');
    expect(securitySeverity('severe')).toBeNull();
    expect(securitySeverity(-2)).toBeNull();
  });
});

describe('refusals', () => {
  test('empty, whitespace, null and [] hold no report', async () => {
    for (const s of ['', '  \n\t', 'null', '[]', '\ufeff  ']) {
      expect(await refusal(s)).toEqual({ code: 'EMPTY', message: 'the file holds no report' });
    }
  });
  test('over the size limit is refused before parsing', async () => {
    expect(await refusal('not even json', 5)).toEqual({
      code: 'TOO_LARGE',
      message: expect.stringMatching(/over the 0\.0 KB import limit/),
    });
  });
  test('a JSON syntax error says line and column', async () => {
    const r = await refusal('{\n  "version": "2.1.0",\n  "runs": [,]\n}');
    expect(r.code).toBe('INVALID');
    expect(r.message).toBe('JSON syntax error at line 3, column 12: a value was expected');
  });
  test('a bad JSON Lines line is named', async () => {
    const line = JSON.stringify({ 'template-id': 't', info: { name: 'n', severity: 'low' }, host: 'h' });
    const r = await refusal(`${line}\n${line}\n{"template-id": oops}\n`);
    expect(r.code).toBe('INVALID');
    expect(r.message).toMatch(/^line 3: JSON syntax error/);
  });
  test('an XML syntax error says where', async () => {
    const r = await refusal('<?xml version="1.0"?>\n<OWASPZAPReport>\n<site></alerts>\n</OWASPZAPReport>');
    expect(r.code).toBe('INVALID');
    expect(r.message).toMatch(/^XML syntax error at line 3/);
  });
  test('SARIF versions other than 2.1.0 are named', async () => {
    expect(await refusal({ version: '2.0.0', runs: [] })).toEqual({
      code: 'UNSUPPORTED_VERSION',
      message: 'SARIF version 2.0.0 is not supported (only SARIF 2.1.0 is)',
    });
  });
  test('a missing version is said to be missing, never "null"', async () => {
    expect(await refusal({ runs: [] })).toEqual({
      code: 'UNSUPPORTED_VERSION',
      message: 'the SARIF log has no "version" (only SARIF 2.1.0 is supported)',
    });
    expect(await refusal({ format: 'corpus-chat-native', findings: [] })).toEqual({
      code: 'UNSUPPORTED_VERSION',
      message: 'the native report has no "format_version" (only 1 is supported)',
    });
  });
  test('a SARIF result that is not an object is refused with its path', async () => {
    const r = await refusal({
      version: '2.1.0',
      runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: { text: 'a' } }, 7] }],
    });
    expect(r).toEqual({ code: 'INVALID', message: 'runs[0].results[1]: expected a result object' });
  });
  test('unknown JSON and text are unrecognised', async () => {
    expect((await refusal({ hello: 'world' })).message).toMatch(
      /^unrecognised format: a JSON object with keys "hello"/,
    );
    expect((await refusal('just some words, here\nand there')).code).toBe('UNRECOGNISED_FORMAT');
    expect(await refusal('%PDF-1.7 ...')).toEqual({
      code: 'UNSUPPORTED_FORMAT',
      message: 'format PDF is not supported yet',
    });
    expect(await refusal('a,b,c\n1,"x, y",3\n')).toMatchObject({
      code: 'UNRECOGNISED_FORMAT',
      message: expect.stringMatching(/not the header row of a known CSV export/),
    });
  });
  test('an invalid native report names the JSON path', async () => {
    const r = await refusal({
      format: 'corpus-chat-native',
      format_version: 1,
      findings: [{ versions: [{ title: 't', severity: 'severe' }] }],
    });
    expect(r.code).toBe('INVALID');
    expect(r.message).toBe(
      'not a valid native report: findings[0].versions[0].severity: must be one of critical, high, medium, low, info',
    );
    expect((await refusal({ format: 'corpus-chat-native', format_version: 2, findings: [] })).code).toBe(
      'UNSUPPORTED_VERSION',
    );
  });
});

describe('SARIF rules', () => {
  const log = {
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'demo',
            rules: [
              {
                id: 'R0',
                shortDescription: { text: 'Rule zero' },
                properties: { tags: ['external/cwe/cwe-79', 'CWE-80', 'cwe'] },
              },
              {
                id: 'R1',
                name: 'RuleOne',
                fullDescription: { text: '<b>Full</b> text' },
                defaultConfiguration: { level: 'error' },
                messageStrings: { m: { text: 'Found {0} in {1}' } },
                relationships: [{ target: { id: 'CWE-89', toolComponent: { name: 'CWE' } } }],
              },
            ],
          },
        },
        results: [
          {
            ruleId: 'R1',
            ruleIndex: 0,
            message: { id: 'm', arguments: ['x', 'y'] },
            locations: [{ physicalLocation: { artifactLocation: { uri: 'a.c' }, region: { startLine: 3 } } }],
          },
          {
            ruleIndex: 0,
            level: 'note',
            message: { text: 'first line\nsecond' },
            properties: { 'security-severity': '9.1', cwe: 'CWE-200 Info' },
          },
          { message: { text: 'A message' } },
          { ruleId: 'R0', kind: 'pass', message: { text: 'ok' } },
          { ruleId: 'R0', suppressions: [{ kind: 'inSource' }], message: { text: 'hidden' } },
          { ruleId: 'R0', suppressions: [], level: 'bogus', message: { text: 'kept' } },
        ],
      },
    ],
  };

  test('rules, severities, CWE ids, titles and messages follow IMPORT-RULES', async () => {
    const r = await parse(log);
    expect(r.format).toBe('sarif');
    expect(r.docMetadata).toMatchObject({
      suppressed: 1,
      skipped: 1,
      unmappedSeverities: 1,
      tool: { name: 'demo' },
    });
    const v = r.findings.map((f) => f.versions[0]);
    expect(v).toHaveLength(4);
    // ruleId wins over a ruleIndex that points elsewhere; level from the rule's defaultConfiguration.
    expect(v[0]).toMatchObject({
      title: 'RuleOne',
      severity: 'high',
      description: 'Found x in y',
      impact: 'Full  text',
      cwe: [89],
      affectedEndpoints: ['a.c:3'],
    });
    // no ruleId: the rule at ruleIndex; security-severity beats level; cwe property and tags.
    expect(v[1]).toMatchObject({ title: 'Rule zero', severity: 'critical', cwe: [79, 80, 200] });
    // no rule at all: first message line, default level warning.
    expect(v[2]).toMatchObject({ title: 'A message', severity: 'medium', cwe: [] });
    // an empty suppressions array does not suppress; an unknown level becomes info (counted).
    expect(v[3]).toMatchObject({ severity: 'info', description: 'kept' });
  });

  test('the same JSON with other whitespace has the same content hash', async () => {
    const a = await parse(JSON.stringify(log));
    const b = await parse(JSON.stringify(log, null, 2));
    expect(a.contentHash).toBe(b.contentHash);
  });
});

describe('ZAP, Nuclei and Trivy rules', () => {
  test('ZAP XML after comments: alerts, instances as endpoints, riskcode, own otherinfo', async () => {
    const xml = `  <!-- exported -->\n<?xml version="1.0"?><OWASPZAPReport version="2.10.0" generated="now">
      <site name="https://x"><alerts><alertitem><alert>SQL Injection</alert><riskcode>3</riskcode><cweid>89</cweid>
      <desc>&lt;p&gt;Bad &amp;amp; worse&lt;/p&gt;</desc><otherinfo>own</otherinfo>
      <instances><instance><uri>https://x/a</uri><method>GET</method><param>q</param><otherinfo>inst</otherinfo></instance>
      <instance><uri>https://x/b</uri><method>POST</method></instance></instances></alertitem>
      <alertitem><alert>Weird</alert><riskcode>7</riskcode><cweid>-1</cweid><desc>d</desc></alertitem></alerts></site></OWASPZAPReport>`;
    const r = await parse(xml);
    expect(r.format).toBe('zap');
    expect(r.docMetadata).toMatchObject({ unmappedSeverities: 1, tool: { version: '2.10.0' } });
    expect(r.findings[0].versions[0]).toMatchObject({
      title: 'SQL Injection',
      severity: 'high',
      cwe: [89],
      description: 'Bad & worse',
      impact: 'own',
      affectedEndpoints: ['GET https://x/a [param: q]', 'POST https://x/b'],
    });
    expect(r.findings[1].versions[0]).toMatchObject({ severity: 'info', cwe: [], impact: null });
  });

  test('Nuclei: a JSON array; unknown severity is info and counted', async () => {
    const r = await parse([
      {
        'template-id': 'a',
        info: { name: 'A', severity: 'critical', classification: { 'cwe-id': ['cwe-798'] } },
        'matched-at': 'http://h/x',
      },
      { templateID: 'b', info: { name: 'B', severity: 'unknown' }, host: 'h2' },
    ]);
    expect(r.format).toBe('nuclei');
    expect(r.docMetadata['unmappedSeverities']).toBe(1);
    expect(r.findings.map((f) => f.versions[0])).toMatchObject([
      { title: 'A', severity: 'critical', cwe: [798], affectedEndpoints: ['http://h/x'] },
      { title: 'B', severity: 'info', affectedEndpoints: ['h2'] },
    ]);
  });

  test('Trivy v2: vulnerabilities, misconfigurations and secrets', async () => {
    const r = await parse({
      SchemaVersion: 2,
      ArtifactName: 'img',
      Results: [
        {
          Target: 't1',
          Vulnerabilities: [
            {
              VulnerabilityID: 'CVE-1',
              PkgName: 'p',
              InstalledVersion: '1',
              Severity: 'UNKNOWN',
              CweIDs: ['CWE-79'],
            },
          ],
        },
        {
          Target: 't2',
          Misconfigurations: [
            { ID: 'DS1', Title: 'Root user', Description: 'desc', Message: 'msg', Severity: 'HIGH' },
          ],
        },
        {
          Target: 't3',
          Secrets: [
            {
              RuleID: 'aws-key',
              Category: 'AWS',
              Title: 'AWS key',
              Severity: 'CRITICAL',
              Match: 'AKIA123',
              StartLine: 4,
            },
          ],
        },
      ],
    });
    expect(r.docMetadata).toMatchObject({ unmappedSeverities: 1, target: 'img' });
    expect(r.findings.map((f) => f.versions[0])).toMatchObject([
      { title: 'CVE-1', severity: 'info', cwe: [79], affectedEndpoints: ['t1', 'p@1'] },
      { title: 'Root user', severity: 'high', description: 'desc\nmsg' },
      { title: 'AWS key', severity: 'critical', description: 'aws-key AWS', affectedEndpoints: ['t3:4'] },
    ]);
    expect(JSON.stringify(r.findings[2].versions[0])).not.toContain('AKIA123');
  });
});
