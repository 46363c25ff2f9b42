import 'reflect-metadata';
import { ToolArgsValidator, shownToolName } from './tool-args.validator';

describe('ToolArgsValidator', () => {
  const v = new ToolArgsValidator();

  it('accepts valid arguments given as JSON text and applies defaults', () => {
    const r = v.check('search_findings', '{"text":"SQL injection","severity":"high"}');
    expect(r).toEqual({
      ok: true,
      name: 'search_findings',
      args: { text: 'SQL injection', severity: 'high', limit: 10, offset: 0 },
    });
  });

  it('forgives what small models commonly send: nulls, empty strings, capitalised enums, "CWE-79", numeric strings', () => {
    const r = v.check('search_findings', {
      text: '',
      severity: 'High',
      reportName: null,
      cwe: 'CWE-79',
      limit: '5',
    });
    expect(r).toEqual({
      ok: true,
      name: 'search_findings',
      args: { severity: 'high', cwe: 79, limit: 5, offset: 0 },
    });
  });

  it('takes a triage status filter from the shared schema, lower-casing it, and refuses an unknown one', () => {
    const r = v.check('count_findings_by', { groupBy: 'severity', filter: { status: 'False_Positive' } });
    expect(r).toEqual({
      ok: true,
      name: 'count_findings_by',
      args: { groupBy: 'severity', filter: { status: 'false_positive' } },
    });
    const bad = v.check('search_findings', { status: 'dismissed' });
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.message).toContain(
        "'status' must be one of: open, confirmed, false_positive, risk_accepted, fixed",
      );
  });

  it('tells the model which value is wrong and what is allowed', () => {
    const r = v.check('search_findings', { severity: 'severe' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toContain("'severity' must be one of: critical, high, medium, low, info");
    expect(r.message).toContain('Allowed properties: text, severity');
  });

  it('names unknown properties and missing required ones', () => {
    const a = v.check('count_findings_by', { group: 'severity' });
    expect(a.ok).toBe(false);
    if (!a.ok) {
      expect(a.message).toContain("unknown property 'group'");
      expect(a.message).toContain("must include 'groupBy'");
    }
  });

  it('reports malformed JSON with the parser message and an example', () => {
    const r = v.check('finding_detail', '{"id": 12');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/not valid JSON .*for example \{"id": 12\}/);
  });

  it('refuses unknown tools, listing the real ones', () => {
    const r = v.check('delete_reports', '{}');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('Available tools: get_corpus_overview, search_findings');
  });

  it('shows an invented tool name cut to 64 characters, control characters (NUL among them) replaced', () => {
    expect(shownToolName('search_findings')).toBe('search_findings');
    expect(shownToolName('drop\u0000table\nnow')).toBe('drop\ufffdtable\ufffdnow');
    expect(shownToolName('x'.repeat(500))).toBe('x'.repeat(64));
    // Cut by code point, never inside a surrogate pair; bidi overrides cannot reverse the label.
    expect(shownToolName('x'.repeat(63) + '\u{1F600}tail')).toBe('x'.repeat(63) + '\u{1F600}');
    expect(shownToolName('evil\u202Eslaer_lla_eteled')).toBe('evil\ufffdslaer_lla_eteled');
  });

  it('rejects a limit above the row cap', () => {
    expect(v.check('search_findings', { limit: 500 }).ok).toBe(false);
  });

  it('compare_reports: a report id may come as a number, the order defaults to given, the baseline is required', () => {
    expect(v.check('compare_reports', { baseline: 12, report: 'scan-v2.json' })).toEqual({
      ok: true,
      name: 'compare_reports',
      args: { baseline: '12', report: 'scan-v2.json', ordered: true },
    });
    const missing = v.check('compare_reports', { report: 'scan-v2.json', baseline: '' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.message).toContain("must include 'baseline'");
  });
});
