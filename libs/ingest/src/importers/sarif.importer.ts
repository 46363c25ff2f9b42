import type * as Sarif from 'sarif';
import type { Severity } from '@corpus-chat/contracts';
import { earliestScanTime, identityField, targetSet } from './identity';
import { ImportRefusal, invalidAt } from './import-refusal';
import { scannerFinding, type ParsedFinding, type ParsedReport } from './parsed-report';
import {
  SeverityCounter,
  cweId,
  cweIds,
  firstLine,
  isObject,
  str,
  stripHtml,
  stripHtmlOrNull,
  uniqueSorted,
} from './text';

/** True when a parsed JSON document is a SARIF log of any version (a `runs` array or a SARIF `$schema`). */
export function looksLikeSarif(doc: Record<string, unknown>): boolean {
  return Array.isArray(doc['runs']) || (typeof doc['$schema'] === 'string' && /sarif/i.test(doc['$schema']));
}

/** A `security-severity` property: a score by the CVSS 3.1 bands, or a severity word; else null. */
export function securitySeverity(value: unknown): Severity | null {
  let score: number | null = null;
  if (typeof value === 'number' && Number.isFinite(value)) score = value;
  else if (typeof value === 'string') {
    const s = value.trim();
    if (/^[+]?(\d+(\.\d*)?|\.\d+)$/.test(s)) score = Number(s);
    else {
      const word = s.toLowerCase();
      if (word === 'critical' || word === 'high' || word === 'medium' || word === 'low') return word;
      return null;
    }
  }
  if (score === null || score < 0) return null;
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  if (score > 0) return 'low';
  return 'info';
}

/** SARIF 2.1.0 §3.27.10 `level` → severity: error → high, warning → medium, note → low, none → info. */
const LEVEL_SEVERITIES = new Map<unknown, Severity>([
  ['error', 'high'],
  ['warning', 'medium'],
  ['note', 'low'],
  ['none', 'info'],
]);
const levelSeverity = (level: unknown): Severity | null => LEVEL_SEVERITIES.get(level) ?? null;

/** SARIF 2.1.0 §3.11.5: `{n}` placeholders replaced by arguments; `{{` and `}}` are literal braces. */
function formatMessage(template: string, args: unknown[]): string {
  return template.replace(/\{\{|\}\}|\{(\d+)\}/g, (m, n: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    const a = args[Number(n)];
    return a === undefined || a === null ? m : String(a);
  });
}

interface RunContext {
  driver: Sarif.ToolComponent;
  extensions: Sarif.ToolComponent[];
  byId: Map<string, Sarif.ReportingDescriptor>;
  taxonomies: Sarif.ToolComponent[];
}

function ruleArray(component: Sarif.ToolComponent | undefined): Sarif.ReportingDescriptor[] {
  return Array.isArray(component?.rules) ? component.rules.filter(isObject) : [];
}

/** IMPORT-RULES: the rule whose id equals the result's ruleId, else the rule at ruleIndex. */
function ruleOf(result: Sarif.Result, ctx: RunContext): Sarif.ReportingDescriptor | undefined {
  const ruleId = result.ruleId ?? result.rule?.id;
  if (typeof ruleId === 'string') {
    const byId = ctx.byId.get(ruleId);
    if (byId) return byId;
  }
  const index = result.ruleIndex ?? result.rule?.index;
  if (typeof index !== 'number' || index < 0) return undefined;
  const componentIndex = result.rule?.toolComponent?.index;
  const rules =
    typeof componentIndex === 'number' ? ruleArray(ctx.extensions[componentIndex]) : ruleArray(ctx.driver);
  return rules[index];
}

/** A typed SARIF value that is really an object (files do not always follow the schema). */
function present<T>(value: T | null | undefined): value is T {
  return typeof value === 'object' && value !== null;
}

const CWE_TAG = /^(?:external\/cwe\/)?cwe-(\d+)$/i;

function tagCwes(props: Sarif.PropertyBag | undefined): number[] {
  const tags = props?.tags;
  if (!Array.isArray(tags)) return [];
  const out: number[] = [];
  for (const t of tags) {
    const m = typeof t === 'string' ? CWE_TAG.exec(t.trim()) : null;
    if (m) {
      const id = cweId(m[1]);
      if (id !== null) out.push(id);
    }
  }
  return out;
}

/** CWE ids of the rule's relationships whose target belongs to a taxonomy named `CWE` (SARIF 2.1.0 §3.53). */
function relationshipCwes(rule: Sarif.ReportingDescriptor | undefined, ctx: RunContext): number[] {
  const out: number[] = [];
  for (const rel of Array.isArray(rule?.relationships) ? rule.relationships : []) {
    const target = present(rel) ? rel.target : undefined;
    if (!present(target)) continue;
    const ref = target.toolComponent;
    let taxonomy: Sarif.ToolComponent | undefined;
    if (ref && typeof ref.index === 'number') taxonomy = ctx.taxonomies[ref.index];
    if (!taxonomy && ref?.guid) taxonomy = ctx.taxonomies.find((t) => t.guid === ref.guid);
    if (!taxonomy && ref?.name) taxonomy = ctx.taxonomies.find((t) => t.name === ref.name);
    const name = ref?.name ?? taxonomy?.name;
    if (typeof name !== 'string' || name.toUpperCase() !== 'CWE') continue;
    let id: unknown = target.id;
    if (id === undefined && typeof target.index === 'number') id = taxonomy?.taxa?.[target.index]?.id;
    const n = cweId(id);
    if (n !== null) out.push(n);
  }
  return out;
}

function endpoints(result: Sarif.Result): string[] {
  const out: string[] = [];
  for (const loc of Array.isArray(result.locations) ? result.locations : []) {
    const phys = present(loc) ? loc.physicalLocation : undefined;
    const uri = phys?.artifactLocation?.uri;
    if (typeof uri !== 'string' || uri === '') continue;
    const line = phys?.region?.startLine;
    out.push(typeof line === 'number' ? `${uri}:${line}` : uri);
  }
  return out;
}

function messageText(
  result: Sarif.Result,
  rule: Sarif.ReportingDescriptor | undefined,
  ctx: RunContext,
): string {
  const message = result.message;
  if (!isObject(message)) return '';
  if (typeof message.text === 'string') return message.text;
  if (typeof message.id === 'string') {
    const template =
      rule?.messageStrings?.[message.id]?.text ?? ctx.driver.globalMessageStrings?.[message.id]?.text;
    if (typeof template === 'string')
      return formatMessage(template, Array.isArray(message.arguments) ? message.arguments : []);
  }
  return '';
}

function cvssOf(result: Sarif.Result): { base_score?: number; vector?: string } | null {
  const score = result.properties?.['cvssv3_baseScore'];
  const n = typeof score === 'number' ? score : typeof score === 'string' ? Number(score) : NaN;
  return Number.isFinite(n) && n >= 0 && n <= 10 ? { base_score: n } : null;
}

/** `key=value` for every entry of a fingerprint map, sorted; empty for a missing or empty map. */
function fingerprintFields(map: unknown): string[] {
  if (!isObject(map)) return [];
  return Object.entries(map)
    .map(([k, v]) => `${identityField(k)}=${identityField(v)}`)
    .sort();
}

/** IMPORT-RULES identity, SARIF: tool, rule id, then fingerprints, partial fingerprints or first location. */
function resultIdentity(result: Sarif.Result, ruleId: unknown, ctx: RunContext): string[] {
  const head = [identityField(ctx.driver.name), identityField(ruleId)];
  const full = fingerprintFields(result.fingerprints);
  if (full.length) return [...head, ...full];
  const partial = fingerprintFields(result.partialFingerprints);
  if (partial.length) return [...head, ...partial];
  const first = Array.isArray(result.locations) ? result.locations[0] : undefined;
  const phys = present(first) ? first.physicalLocation : undefined;
  return [...head, identityField(phys?.artifactLocation?.uri), identityField(phys?.region?.startLine)];
}

function parseResult(result: Sarif.Result, ctx: RunContext, severities: SeverityCounter): ParsedFinding {
  const rule = ruleOf(result, ctx);
  const ruleId = result.ruleId ?? result.rule?.id ?? rule?.id;

  const fromSecurity =
    securitySeverity(result.properties?.['security-severity']) ??
    securitySeverity(rule?.properties?.['security-severity']);
  const level = result.level ?? rule?.defaultConfiguration?.level ?? 'warning';
  const severity = fromSecurity ?? severities.take(levelSeverity(level));

  const cwe = uniqueSorted([
    ...tagCwes(rule?.properties),
    ...tagCwes(result.properties),
    ...cweIds(rule?.properties?.['cwe']),
    ...cweIds(result.properties?.['cwe']),
    ...relationshipCwes(rule, ctx),
  ]);

  const message = messageText(result, rule, ctx);
  const title =
    stripHtml(rule?.shortDescription?.text) ||
    stripHtml(rule?.name) ||
    stripHtml(firstLine(message, 200)) ||
    stripHtml(typeof ruleId === 'string' ? ruleId : '') ||
    '(untitled result)';

  const finding = scannerFinding({
    title,
    severity,
    description: stripHtml(message),
    impact: stripHtmlOrNull(rule?.fullDescription?.text),
    affectedEndpoints: endpoints(result),
    cwe,
    cvss: cvssOf(result),
    raw: result,
  });
  return { ...finding, identity: resultIdentity(result, ruleId, ctx) };
}

/**
 * SARIF 2.1.0 per IMPORT-RULES: every result is a finding, except suppressed ones and kinds
 * `pass`/`notApplicable` (counted apart). Another `version` is refused.
 */
export function parseSarif(doc: Record<string, unknown>): ParsedReport {
  if (doc['version'] == null) {
    throw new ImportRefusal(
      'UNSUPPORTED_VERSION',
      'the SARIF log has no "version" (only SARIF 2.1.0 is supported)',
    );
  }
  if (doc['version'] !== '2.1.0') {
    const found = typeof doc['version'] === 'string' ? doc['version'] : JSON.stringify(doc['version']);
    throw new ImportRefusal(
      'UNSUPPORTED_VERSION',
      `SARIF version ${found} is not supported (only SARIF 2.1.0 is)`,
    );
  }
  const log = doc as unknown as Sarif.Log;
  if (!Array.isArray(log.runs)) throw invalidAt('runs', 'expected an array of runs');

  const severities = new SeverityCounter();
  const findings: ParsedFinding[] = [];
  const tools: { name?: string; version?: string }[] = [];
  let suppressed = 0;
  let skipped = 0;
  let scanDate: string | undefined;
  let target: string | undefined;
  const startTimes: unknown[] = [];
  const repositories: unknown[] = [];

  log.runs.forEach((run, i) => {
    const where = `runs[${i}]`;
    if (!isObject(run)) throw invalidAt(where, 'expected a run object');
    const driver = run.tool?.driver;
    if (!isObject(driver)) throw invalidAt(`${where}.tool.driver`, 'missing: a SARIF run must name its tool');
    const extensions = Array.isArray(run.tool.extensions) ? run.tool.extensions : [];
    const byId = new Map<string, Sarif.ReportingDescriptor>();
    for (const component of [driver, ...extensions]) {
      for (const rule of ruleArray(component))
        if (typeof rule.id === 'string' && !byId.has(rule.id)) byId.set(rule.id, rule);
    }
    const taxonomies = Array.isArray(run.taxonomies) ? run.taxonomies.filter(isObject) : [];
    const ctx: RunContext = { driver, extensions: extensions.filter(isObject), byId, taxonomies };

    tools.push({ name: str(driver.name), version: str(driver.version) ?? str(driver.semanticVersion) });
    const inv = Array.isArray(run.invocations) ? run.invocations[0] : undefined;
    scanDate ??= str(inv?.startTimeUtc) ?? str(inv?.endTimeUtc);
    for (const invocation of Array.isArray(run.invocations) ? run.invocations : [])
      if (present(invocation)) startTimes.push(invocation.startTimeUtc);
    for (const vcp of Array.isArray(run.versionControlProvenance) ? run.versionControlProvenance : [])
      if (present(vcp)) repositories.push(vcp.repositoryUri);
    target ??=
      str(run.versionControlProvenance?.[0]?.repositoryUri) ?? str(run.originalUriBaseIds?.['SRCROOT']?.uri);

    const results = run.results;
    if (results === undefined || results === null) return;
    if (!Array.isArray(results)) throw invalidAt(`${where}.results`, 'expected an array of results');
    results.forEach((result, j) => {
      if (!isObject(result)) throw invalidAt(`${where}.results[${j}]`, 'expected a result object');
      if (Array.isArray(result.suppressions) && result.suppressions.length > 0) {
        suppressed++;
        return;
      }
      if (result.kind === 'pass' || result.kind === 'notApplicable') {
        skipped++;
        return;
      }
      try {
        findings.push(parseResult(result, ctx, severities));
      } catch (e) {
        throw invalidAt(`${where}.results[${j}]`, `could not read the result (${(e as Error).message})`);
      }
    });
  });

  return {
    format: 'sarif',
    findings,
    docMetadata: {
      tool: tools[0] ?? null,
      ...(tools.length > 1 ? { tools } : {}),
      sarifVersion: '2.1.0',
      scanDate: scanDate ?? null,
      target: target ?? null,
      runs: log.runs.length,
      unmappedSeverities: severities.unmapped,
      suppressed,
      skipped,
      // Scans of the same target must come from the same set of tools (IMPORT-RULES).
      toolNames: [...new Set(tools.map((t) => t.name ?? ''))].sort(),
    },
    target: targetSet(repositories),
    scannedAt: earliestScanTime(startTimes),
  };
}
