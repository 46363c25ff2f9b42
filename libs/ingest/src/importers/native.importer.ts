import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  NATIVE_REPORT_FORMAT,
  NATIVE_REPORT_FORMAT_VERSION,
  NATIVE_REPORT_SCHEMA,
  type NativeReport,
} from '@corpus-chat/contracts';
import { ImportRefusal, invalidAt } from './import-refusal';
import type { ParsedFinding, ParsedReport } from './parsed-report';
import { stripHtml, stripHtmlOrNull, uniqueSorted } from './text';

let validator: ValidateFunction | undefined;

function validate(doc: unknown): ErrorObject[] {
  if (!validator) {
    const ajv = new Ajv({ allErrors: false, strict: true });
    addFormats(ajv);
    validator = ajv.compile(NATIVE_REPORT_SCHEMA);
  }
  return validator(doc) ? [] : (validator.errors ?? []);
}

/** `/findings/0/versions/1/severity` → `findings[0].versions[1].severity`. */
function jsonPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function describe(error: ErrorObject): string {
  const where = jsonPath(error.instancePath) || '(document)';
  if (error.keyword === 'additionalProperties')
    return `${where}: unknown field "${String(error.params['additionalProperty'])}"`;
  if (error.keyword === 'enum')
    return `${where}: must be one of ${(error.params['allowedValues'] as unknown[]).join(', ')}`;
  return `${where}: ${error.message ?? 'is invalid'}`;
}

/** True when a parsed JSON document declares the native format. */
export function looksLikeNative(doc: Record<string, unknown>): boolean {
  return doc['format'] === NATIVE_REPORT_FORMAT;
}

/** The native JSON report, validated against its JSON Schema (the first violation is refused). */
export function parseNative(doc: Record<string, unknown>): ParsedReport {
  if (doc['format_version'] == null) {
    throw new ImportRefusal(
      'UNSUPPORTED_VERSION',
      `the native report has no "format_version" (only ${NATIVE_REPORT_FORMAT_VERSION} is supported)`,
    );
  }
  if (doc['format_version'] !== NATIVE_REPORT_FORMAT_VERSION) {
    throw new ImportRefusal(
      'UNSUPPORTED_VERSION',
      `native report format_version ${JSON.stringify(doc['format_version'])} is not supported (only ${NATIVE_REPORT_FORMAT_VERSION} is)`,
    );
  }
  const errors = validate(doc);
  if (errors.length) throw invalidAt('', `not a valid native report: ${describe(errors[0])}`);
  const native = doc as unknown as NativeReport;

  const findings: ParsedFinding[] = native.findings.map((f, i) => ({
    createdAt: f.created_at ?? null,
    versions: f.versions.map((v, n) => {
      const title = stripHtml(v.title);
      if (!title) throw invalidAt(`findings[${i}].versions[${n}].title`, 'is empty once HTML is stripped');
      return {
        origin: n === 0 ? ('import' as const) : ('edit' as const),
        title,
        severity: v.severity,
        description: stripHtml(v.description),
        impact: stripHtmlOrNull(v.impact),
        attackVector: stripHtmlOrNull(v.attack_vector),
        affectedEndpoints: v.affected_endpoints ?? [],
        reproductionSteps: v.reproduction_steps ?? [],
        cwe: uniqueSorted(v.cwe ?? []),
        cvss: v.cvss ?? null,
        mitre: v.mitre ?? [],
        raw: f.ref ? { ref: f.ref, ...v } : v,
        editedBy: v.edited_by ?? null,
        reason: v.reason ?? null,
        createdAt: v.created_at ?? null,
      };
    }),
    notes: (f.notes ?? []).map((n) => ({
      stage: n.stage,
      body: n.body,
      author: n.author ?? null,
      createdAt: n.created_at ?? null,
    })),
    verdicts: (f.verdicts ?? []).map((v) => ({
      status: v.status,
      reasonCode: v.reason_code ?? null,
      rationale: v.rationale ?? null,
      actor: v.actor,
      createdAt: v.created_at ?? null,
    })),
  }));

  const r = native.report ?? {};
  return {
    format: 'json',
    findings,
    docMetadata: {
      tool: r.tool
        ? { name: r.tool.name ?? null, version: r.tool.version ?? null }
        : { name: 'native report', version: null },
      title: r.title ?? null,
      scanDate: r.scan_date ?? null,
      target: r.target ?? null,
      author: r.author ?? null,
      ...(r.metadata ? { metadata: r.metadata } : {}),
      formatVersion: native.format_version,
      unmappedSeverities: 0,
    },
  };
}
