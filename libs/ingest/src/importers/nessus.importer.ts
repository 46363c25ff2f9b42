import type { CvssScore, Severity } from '@corpus-chat/contracts';
import { earliestScanTime, identityField, identityHost, identityProtocol, targetSet } from './identity';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import { severityWord } from './severity-words';
import { SeverityCounter, isObject, stripHtml, uniqueSorted } from './text';
import { xmlList, xmlText } from './xml-values';

/** The `ReportItem` `severity` attribute: 4 → critical, 3 → high, 2 → medium, 1 → low, 0 → info. */
const SEVERITY_ATTRIBUTE: Record<string, Severity> = {
  '4': 'critical',
  '3': 'high',
  '2': 'medium',
  '1': 'low',
  '0': 'info',
};

/** Every `cwe` child and every `xref` child of the form `CWE:N` (0 ignored). */
function itemCwes(item: Record<string, unknown>): number[] {
  const ids = xmlList(item['cwe']).map((c) => Number(xmlText(c).trim()));
  for (const x of xmlList(item['xref'])) {
    const m = /^\s*CWE:(\d+)\s*$/i.exec(xmlText(x));
    if (m) ids.push(Number(m[1]));
  }
  return uniqueSorted(ids.filter((n) => Number.isSafeInteger(n) && n > 0));
}

/** The item's CVSS v3 base score and vector, when it has them (CVSS v2 fields are left in `raw`). */
function cvss3(item: Record<string, unknown>): CvssScore | null {
  const score = Number(xmlText(item['cvss3_base_score']).trim() || NaN);
  const vector = xmlText(item['cvss3_vector']).trim();
  if (!Number.isFinite(score) && !vector) return null;
  return { ...(vector ? { vector } : {}), ...(Number.isFinite(score) ? { base_score: score } : {}) };
}

/** The value of a `HostProperties` `<tag name="…">`. */
function hostProperty(host: Record<string, unknown>, name: string): string | null {
  const props = isObject(host['HostProperties']) ? host['HostProperties'] : {};
  const tag = xmlList(props['tag']).find((t) => isObject(t) && t['@name'] === name);
  return tag === undefined ? null : xmlText(tag).trim() || null;
}

/** Nessus .nessus v2 (root `NessusClientData_v2`), as IMPORT-RULES "Nessus" maps it. */
export function parseNessus(root: unknown): ParsedReport {
  const severities = new SeverityCounter();
  const findings: ParsedFinding[] = [];
  const hostNames: string[] = [];
  const hostStarts: (string | null)[] = [];
  const reports = isObject(root) ? xmlList(root['Report']) : [];
  for (const report of reports) {
    if (!isObject(report)) continue;
    for (const host of xmlList(report['ReportHost'])) {
      if (!isObject(host)) continue;
      const hostName = xmlText(host['@name']).trim();
      hostNames.push(hostName);
      hostStarts.push(hostProperty(host, 'HOST_START'));
      for (const item of xmlList(host['ReportItem'])) {
        if (!isObject(item)) continue;
        const port = xmlText(item['@port']).trim();
        const protocol = xmlText(item['@protocol']).trim();
        const pluginId = xmlText(item['@pluginID']);
        const severity =
          SEVERITY_ATTRIBUTE[xmlText(item['@severity']).trim()] ?? severityWord(xmlText(item['risk_factor']));
        const finding = scannerFinding({
          title:
            stripHtml(xmlText(item['@pluginName'])) ||
            stripHtml(xmlText(item['plugin_name'])) ||
            `Nessus plugin ${pluginId}`,
          severity: severities.take(severity),
          description: [stripHtml(xmlText(item['synopsis'])), stripHtml(xmlText(item['description']))]
            .filter(Boolean)
            .join('\n'),
          affectedEndpoints: [
            port && port !== '0' ? `${hostName}:${port}${protocol ? `/${protocol}` : ''}` : hostName,
          ].filter(Boolean),
          cwe: itemCwes(item),
          cvss: cvss3(item),
          raw: item,
        });
        finding.identity = [
          identityHost(hostName),
          identityField(pluginId),
          identityField(port),
          identityProtocol(protocol),
        ];
        findings.push(finding);
      }
    }
  }
  const target = targetSet(hostNames);
  return {
    format: 'nessus',
    findings,
    target,
    scannedAt: earliestScanTime(hostStarts),
    docMetadata: {
      tool: { name: 'Nessus', version: null },
      scanDate: hostStarts.find((s) => s) ?? null,
      target: target?.join(', ') ?? null,
      reports: reports.length,
      hosts: hostNames.length,
      unmappedSeverities: severities.unmapped,
    },
  };
}
