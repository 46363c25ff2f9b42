import type { Severity } from '@corpus-chat/contracts';
import { identityField, identityHost, scanTime, targetSet } from './identity';
import { invalidAt } from './import-refusal';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import { SeverityCounter, cweIds, isObject, str, stripHtml, stripHtmlOrNull } from './text';

/** ZAP `riskcode` → severity (IMPORT-RULES: 3 → high, 2 → medium, 1 → low, 0 → info; ZAP has no critical). */
const RISK_SEVERITIES = new Map<string, Severity>([
  ['3', 'high'],
  ['2', 'medium'],
  ['1', 'low'],
  ['0', 'info'],
]);
const riskSeverity = (riskcode: unknown): Severity | null =>
  RISK_SEVERITIES.get(String(riskcode ?? '').trim()) ?? null;

/** A value that the XML parser gives as one element or a list (or '' for an empty element). */
function list(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  return Array.isArray(value) ? value : [value];
}

function instanceEndpoint(instance: unknown): string | null {
  if (!isObject(instance)) return null;
  const uri = str(instance['uri']);
  if (!uri) return null;
  const method = str(instance['method']);
  const param = str(instance['param']);
  return `${method ? `${method} ` : ''}${uri}${param ? ` [param: ${param}]` : ''}`;
}

/**
 * IMPORT-RULES identity, ZAP: the site's name, then the alert's `pluginid` (else `alertRef`, else
 * its name). `pluginid` survives the renames and `alertRef` changes between ZAP versions.
 */
function alertIdentity(siteName: unknown, alert: Record<string, unknown>): string[] {
  const check =
    identityField(alert['pluginid']) ||
    identityField(alert['alertRef']) ||
    identityField(alert['alert']) ||
    identityField(alert['name']);
  return [identityHost(siteName), check];
}

function parseAlert(
  alert: Record<string, unknown>,
  instances: unknown[],
  severities: SeverityCounter,
  siteName: unknown,
): ParsedFinding {
  const finding = scannerFinding({
    title:
      stripHtml(alert['alert']) ||
      stripHtml(alert['name']) ||
      `ZAP alert ${str(alert['pluginid']) ?? ''}`.trim(),
    severity: severities.take(riskSeverity(alert['riskcode'])),
    description: stripHtml(alert['desc']),
    impact: stripHtmlOrNull(alert['otherinfo']),
    affectedEndpoints: instances.map(instanceEndpoint).filter((e): e is string => e !== null),
    cwe: cweIds(alert['cweid']),
    raw: alert,
  });
  return { ...finding, identity: alertIdentity(siteName, alert) };
}

interface ZapSite {
  site: Record<string, unknown>;
  alerts: unknown[];
  instancesOf: (alert: Record<string, unknown>) => unknown[];
}

function parseSites(sites: ZapSite[], root: Record<string, unknown>, wherePrefix: string): ParsedReport {
  const severities = new SeverityCounter();
  const findings: ParsedFinding[] = [];
  sites.forEach(({ site, alerts, instancesOf }, i) => {
    alerts.forEach((alert, j) => {
      if (!isObject(alert)) throw invalidAt(`${wherePrefix}[${i}].alerts[${j}]`, 'expected an alert object');
      findings.push(parseAlert(alert, instancesOf(alert), severities, site['@name']));
    });
  });
  return {
    format: 'zap',
    findings,
    docMetadata: {
      tool: { name: str(root['@programName']) ?? 'OWASP ZAP', version: str(root['@version']) ?? null },
      scanDate: str(root['@generated']) ?? null,
      target:
        sites
          .map((s) => str(s.site['@name']))
          .filter(Boolean)
          .join(', ') || null,
      sites: sites.length,
      unmappedSeverities: severities.unmapped,
    },
    // Sites without alerts are part of what was scanned.
    target: targetSet(sites.map((s) => s.site['@name'])),
    scannedAt: scanTime(root['@generated']),
  };
}

/** True when a parsed JSON document is a ZAP "traditional" JSON report (`site[].alerts[]`). */
export function looksLikeZapJson(doc: Record<string, unknown>): boolean {
  const site = doc['site'];
  const first = Array.isArray(site) ? site[0] : site;
  return (
    (Array.isArray(site) || isObject(site)) &&
    (first === undefined || (isObject(first) && 'alerts' in first) || '@version' in doc)
  );
}

/** OWASP ZAP traditional JSON: one finding per alert per site, as IMPORT-RULES "ZAP" maps it. */
export function parseZapJson(doc: Record<string, unknown>): ParsedReport {
  const raw = doc['site'];
  const siteList = Array.isArray(raw) ? raw : [raw];
  const sites = siteList.map((site, i): ZapSite => {
    if (!isObject(site)) throw invalidAt(`site[${i}]`, 'expected a site object');
    const alerts = site['alerts'] ?? [];
    if (!Array.isArray(alerts)) throw invalidAt(`site[${i}].alerts`, 'expected an array of alerts');
    return { site, alerts, instancesOf: (a) => (Array.isArray(a['instances']) ? a['instances'] : []) };
  });
  return parseSites(sites, doc, 'site');
}

/**
 * OWASP ZAP XML report (root `OWASPZAPReport`), already parsed by fast-xml-parser with attributes
 * prefixed `@`: each `alertitem` of each `site` is one finding, rules as for the JSON report.
 */
export function parseZapXml(root: Record<string, unknown>): ParsedReport {
  const sites = list(root['site']).map((site): ZapSite => {
    if (!isObject(site)) return { site: {}, alerts: [], instancesOf: () => [] };
    const alerts = isObject(site['alerts']) ? list(site['alerts']['alertitem']) : list(site['alerts']);
    return {
      site,
      alerts,
      instancesOf: (a) => (isObject(a['instances']) ? list(a['instances']['instance']) : []),
    };
  });
  return parseSites(sites, root, 'OWASPZAPReport.site');
}
