import type { CvssScore, Severity } from '@corpus-chat/contracts';
import { identityField, identityHost, scanTime, targetSet } from './identity';
import { invalidAt, unrecognised } from './import-refusal';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import { SeverityCounter, arrayOrEmpty, cweIds, isObject, str, stripHtml, uniqueSorted } from './text';

/** Trivy `Severity` → severity (IMPORT-RULES: UNKNOWN or any other value → info, counted as unmapped). */
const TRIVY_SEVERITIES = new Map<string, Severity>([
  ['CRITICAL', 'critical'],
  ['HIGH', 'high'],
  ['MEDIUM', 'medium'],
  ['LOW', 'low'],
]);
const trivySeverity = (value: unknown): Severity | null =>
  TRIVY_SEVERITIES.get(typeof value === 'string' ? value.trim().toUpperCase() : '') ?? null;

/** The CVSS of a vulnerability: NVD's v3 vector and score when present, else the first source with a v3 score. */
function cvssOf(cvss: unknown): CvssScore | null {
  if (!isObject(cvss)) return null;
  const sources = [cvss['nvd'], ...Object.values(cvss)].filter(isObject);
  for (const s of sources) {
    const score = s['V3Score'];
    if (typeof score === 'number')
      return { base_score: score, ...(str(s['V3Vector']) ? { vector: str(s['V3Vector']) } : {}) };
  }
  return null;
}

/** The document shapes Trivy writes (IMPORT-RULES, Trivy). */
export type TrivyLayout = 'v2' | 'legacy' | 'k8s';

/** Which Trivy layout a parsed JSON document is, or null when it is not Trivy output. */
export function trivyLayout(doc: unknown): TrivyLayout | null {
  if (Array.isArray(doc))
    return doc.length > 0 && doc.every((t) => isObject(t) && 'Target' in t) ? 'legacy' : null;
  if (!isObject(doc)) return null;
  if ('SchemaVersion' in doc || ('ArtifactName' in doc && 'Results' in doc)) return 'v2';
  if ('ClusterName' in doc) {
    if ('Resources' in doc) return 'k8s';
    throw unrecognised('older trivy-k8s summary layout (ClusterName without Resources) is not supported');
  }
  return null;
}

class TrivyCollector {
  readonly severities = new SeverityCounter();
  readonly findings: ParsedFinding[] = [];
  counts = { vulnerabilities: 0, misconfigurations: 0, secrets: 0 };

  private push(finding: ParsedFinding, identity: string[]): void {
    this.findings.push({ ...finding, identity });
  }

  /**
   * `resource` is the Kubernetes resource as `Namespace/Kind/Name` ('' outside the Kubernetes
   * report): with the result's `Target` it starts every finding's identity (IMPORT-RULES, Trivy).
   */
  addResult(result: unknown, where: string, prefix: string, resource = ''): void {
    if (!isObject(result)) throw invalidAt(where, 'expected a result object');
    const target = `${prefix}${str(result['Target']) ?? ''}`;
    const identity = (...fields: unknown[]): string[] => [
      resource,
      identityHost(result['Target']),
      ...fields.map(identityField),
    ];
    const section = (key: string): unknown[] => {
      const list = arrayOrEmpty(result[key]);
      if (!list) throw invalidAt(`${where}.${key}`, 'expected an array');
      return list;
    };
    section('Vulnerabilities').forEach((v, i) => {
      if (!isObject(v)) throw invalidAt(`${where}.Vulnerabilities[${i}]`, 'expected an object');
      const pkg = str(v['PkgName']);
      const version = str(v['InstalledVersion']);
      this.push(
        scannerFinding({
          title: stripHtml(v['Title']) || stripHtml(v['VulnerabilityID']) || '(unnamed vulnerability)',
          severity: this.severities.take(trivySeverity(v['Severity'])),
          description: stripHtml(v['Description']),
          affectedEndpoints: [target, pkg ? `${pkg}@${version ?? ''}` : ''].filter((e) => e !== ''),
          cwe: uniqueSorted(cweIds(v['CweIDs'])),
          cvss: cvssOf(v['CVSS']),
          raw: v,
        }),
        identity(v['VulnerabilityID'], v['PkgName'], v['InstalledVersion']),
      );
      this.counts.vulnerabilities++;
    });
    section('Misconfigurations').forEach((m, i) => {
      if (!isObject(m)) throw invalidAt(`${where}.Misconfigurations[${i}]`, 'expected an object');
      this.push(
        scannerFinding({
          title: stripHtml(m['Title']) || stripHtml(m['ID']) || '(unnamed misconfiguration)',
          severity: this.severities.take(trivySeverity(m['Severity'])),
          description: [stripHtml(m['Description']), stripHtml(m['Message'])].filter(Boolean).join('\n'),
          affectedEndpoints: target ? [target] : [],
          cwe: uniqueSorted(cweIds(m['CweIDs'])),
          raw: m,
        }),
        identity(identityField(m['ID']) || identityField(m['AVDID'])),
      );
      this.counts.misconfigurations++;
    });
    section('Secrets').forEach((s, i) => {
      if (!isObject(s)) throw invalidAt(`${where}.Secrets[${i}]`, 'expected an object');
      const line = typeof s['StartLine'] === 'number' ? `:${s['StartLine']}` : '';
      // Never keep the matched secret: not in the text, not in raw.
      const { Match: _match, Code: _code, ...redacted } = s;
      this.push(
        scannerFinding({
          title: stripHtml(s['Title']) || stripHtml(s['RuleID']) || '(unnamed secret)',
          severity: this.severities.take(trivySeverity(s['Severity'])),
          description: [stripHtml(s['RuleID']), stripHtml(s['Category'])].filter(Boolean).join(' '),
          affectedEndpoints: target ? [`${target}${line}`] : [],
          raw: { ...redacted, Match: '[redacted]' },
        }),
        identity(s['RuleID'], s['StartLine']),
      );
      this.counts.secrets++;
    });
  }
}

/** Trivy JSON (v2, legacy list, Kubernetes), per IMPORT-RULES "Trivy"; a secret's match is never stored. */
export function parseTrivy(doc: unknown, layout: TrivyLayout): ParsedReport {
  const c = new TrivyCollector();
  const meta: Record<string, unknown> = { tool: { name: 'Trivy', version: null }, layout };
  if (layout === 'legacy') {
    (doc as unknown[]).forEach((r, i) => c.addResult(r, `[${i}]`, ''));
    meta['target'] =
      (doc as Record<string, unknown>[]).map((t) => str(t['Target'])).filter(Boolean)[0] ?? null;
  } else if (layout === 'v2') {
    const d = doc as Record<string, unknown>;
    const results = arrayOrEmpty(d['Results']);
    if (!results) throw invalidAt('Results', 'expected an array');
    results.forEach((r, i) => c.addResult(r, `Results[${i}]`, ''));
    meta['schemaVersion'] = d['SchemaVersion'] ?? null;
    meta['target'] = str(d['ArtifactName']) ?? null;
    meta['artifactType'] = str(d['ArtifactType']) ?? null;
    meta['scanDate'] = str(d['CreatedAt']) ?? null;
  } else {
    const d = doc as Record<string, unknown>;
    const resources = arrayOrEmpty(d['Resources']);
    if (!resources) throw invalidAt('Resources', 'expected an array');
    let errors = 0;
    resources.forEach((res, i) => {
      if (!isObject(res)) throw invalidAt(`Resources[${i}]`, 'expected a resource object');
      if (res['Error']) errors++;
      const results = arrayOrEmpty(res['Results']);
      if (!results) throw invalidAt(`Resources[${i}].Results`, 'expected an array');
      const prefix = [str(res['Namespace']), str(res['Kind']), str(res['Name'])].filter(Boolean).join('/');
      const resource = [res['Namespace'], res['Kind'], res['Name']].map(identityField).join('/');
      results.forEach((r, j) =>
        c.addResult(r, `Resources[${i}].Results[${j}]`, prefix ? `${prefix}: ` : '', resource),
      );
    });
    meta['target'] = str(d['ClusterName']) ?? null;
    meta['resources'] = resources.length;
    meta['resourcesWithError'] = errors;
  }
  // IMPORT-RULES target: ArtifactName (SchemaVersion 2), a non-empty ClusterName (Kubernetes), none for the legacy list.
  const d = isObject(doc) ? doc : {};
  return {
    format: 'trivy',
    findings: c.findings,
    docMetadata: { ...meta, ...c.counts, unmappedSeverities: c.severities.unmapped },
    target: layout === 'legacy' ? null : targetSet([layout === 'v2' ? d['ArtifactName'] : d['ClusterName']]),
    scannedAt: layout === 'legacy' ? null : scanTime(d['CreatedAt']),
  };
}
