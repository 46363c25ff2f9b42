import type { Severity } from '@corpus-chat/contracts';
import { earliestScanTime, identityField, identityHost, targetSet } from './identity';
import { invalidAt } from './import-refusal';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import { SeverityCounter, cweIds, isObject, str, stripHtml, stripHtmlOrNull, uniqueSorted } from './text';

const NUCLEI_SEVERITIES = new Set<Severity>(['critical', 'high', 'medium', 'low', 'info']);

/** True when a JSON object is one Nuclei result (`template-id`, or `templateID` in older output). */
export function looksLikeNucleiResult(value: unknown): value is Record<string, unknown> {
  return (
    isObject(value) &&
    ('template-id' in value ||
      'templateID' in value ||
      (isObject(value['info']) && ('matched-at' in value || 'host' in value)))
  );
}

/** Collects Nuclei results (JSON Lines, array or object), as IMPORT-RULES "Nuclei" maps them. */
export class NucleiCollector {
  private readonly severities = new SeverityCounter();
  private readonly findings: ParsedFinding[] = [];
  private readonly templates = new Set<string>();
  private readonly hosts = new Set<string>();
  private readonly timestamps: unknown[] = [];

  /** Adds one result; `where` names it in errors (`line 3`, `[2]`). */
  add(result: unknown, where: string): void {
    if (!isObject(result)) throw invalidAt(where, 'expected a Nuclei result object');
    const info = isObject(result['info']) ? result['info'] : {};
    const templateId = str(result['template-id']) ?? str(result['templateID']) ?? '';
    const sev = typeof info['severity'] === 'string' ? info['severity'].trim().toLowerCase() : '';
    const classification = isObject(info['classification']) ? info['classification'] : {};
    const endpoint = str(result['matched-at']) ?? str(result['host']);
    const score = classification['cvss-score'];
    const vector = str(classification['cvss-metrics']);
    const baseScore =
      typeof score === 'number'
        ? score
        : typeof score === 'string' && score.trim() !== ''
          ? Number(score)
          : NaN;
    const finding = scannerFinding({
      title: stripHtml(info['name']) || templateId || '(unnamed template)',
      severity: this.severities.take(NUCLEI_SEVERITIES.has(sev as Severity) ? (sev as Severity) : null),
      description: stripHtml(info['description']),
      impact: stripHtmlOrNull(info['impact']),
      affectedEndpoints: endpoint ? [endpoint] : [],
      cwe: uniqueSorted(cweIds(classification['cwe-id'])),
      cvss:
        vector || Number.isFinite(baseScore)
          ? {
              ...(vector ? { vector } : {}),
              ...(Number.isFinite(baseScore) ? { base_score: baseScore } : {}),
            }
          : null,
      raw: result,
    });
    // IMPORT-RULES identity, Nuclei: one template reports one result per matcher on the same URL.
    const matcher = identityField(result['matcher-name']) || identityField(result['matcher_name']);
    const matchedAt =
      identityField(result['matched-at']) || identityField(result['matched']) || identityHost(result['host']);
    this.findings.push({ ...finding, identity: [identityField(templateId), matcher, matchedAt] });
    if (templateId) this.templates.add(templateId);
    const host = str(result['host']);
    if (host) this.hosts.add(host);
    this.timestamps.push(result['timestamp']);
  }

  /** The report of everything added so far. */
  report(): ParsedReport {
    const scannedAt = earliestScanTime(this.timestamps);
    return {
      format: 'nuclei',
      findings: this.findings,
      docMetadata: {
        tool: { name: 'Nuclei', version: null },
        scanDate: scannedAt,
        target: [...this.hosts].slice(0, 10).join(', ') || null,
        templates: this.templates.size,
        unmappedSeverities: this.severities.unmapped,
      },
      target: targetSet(this.hosts),
      scannedAt,
    };
  }
}
