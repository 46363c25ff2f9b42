import { identityField, identityHost, scanTime, targetSet } from './identity';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import { isFalsePositiveWord, severityWord } from './severity-words';
import { SeverityCounter, isObject, stripHtml, stripHtmlOrNull, uniqueSorted } from './text';
import { xmlList, xmlText } from './xml-values';

/** The one issue type Burp gives every extension-generated issue (0x08000000), whatever its name. */
const EXTENSION_ISSUE_TYPE = '134217728';

/** Every `CWE-N` of a `vulnerabilityClassifications` HTML list (0 ignored). */
function classificationCwes(value: unknown): number[] {
  const ids = [...xmlText(value).matchAll(/CWE-(\d+)/gi)].map((m) => Number(m[1]));
  return uniqueSorted(ids.filter((n) => Number.isSafeInteger(n) && n > 0));
}

/** True when the root `issues` element is a Burp Suite export: a `burpVersion` attribute or `issue` children. */
export function looksLikeBurp(root: unknown): boolean {
  return isObject(root) && ('@burpVersion' in root || 'issue' in root);
}

/** Burp Suite XML export (root `issues`; attributes prefixed `@`), as IMPORT-RULES "Burp" maps it. */
export function parseBurp(root: unknown): ParsedReport {
  const issues = isObject(root) ? xmlList(root['issue']) : [];
  const attrs = isObject(root) ? root : {};
  const severities = new SeverityCounter();
  const findings: ParsedFinding[] = [];
  const hosts: string[] = [];
  let suppressed = 0;
  for (const issue of issues) {
    if (!isObject(issue)) continue;
    const host = xmlText(issue['host']).trim();
    hosts.push(host);
    if (isFalsePositiveWord(xmlText(issue['severity']))) {
      suppressed++;
      continue;
    }
    const type = identityField(xmlText(issue['type']));
    const path = xmlText(issue['path']).trim();
    const finding = scannerFinding({
      title: stripHtml(xmlText(issue['name'])) || `Burp issue type ${type}`,
      severity: severities.take(severityWord(xmlText(issue['severity']))),
      description: stripHtml(xmlText(issue['issueDetail'])),
      impact: stripHtmlOrNull(xmlText(issue['issueBackground'])),
      affectedEndpoints: host || path ? [`${host}${path}`] : [],
      cwe: classificationCwes(issue['vulnerabilityClassifications']),
      raw: issue,
    });
    finding.identity = [
      identityHost(host),
      identityField(path),
      identityField(xmlText(issue['location'])),
      type,
      ...(type === EXTENSION_ISSUE_TYPE ? [identityField(xmlText(issue['name']))] : []),
    ];
    findings.push(finding);
  }
  const exportTime = typeof attrs['@exportTime'] === 'string' ? attrs['@exportTime'] : null;
  const target = targetSet(hosts);
  return {
    format: 'burp',
    findings,
    target,
    scannedAt: scanTime(exportTime),
    docMetadata: {
      tool: {
        name: 'Burp Suite',
        version: typeof attrs['@burpVersion'] === 'string' ? attrs['@burpVersion'] : null,
      },
      scanDate: exportTime,
      target: target?.join(', ') ?? null,
      suppressed,
      unmappedSeverities: severities.unmapped,
    },
  };
}
