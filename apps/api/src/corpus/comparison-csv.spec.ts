import { comparisonCsvLines, csvField } from './comparison-csv';

describe('comparison CSV', () => {
  it('quotes fields with quotes, commas or line breaks (RFC 4180)', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a, "b"\nc')).toBe('"a, ""b""\nc"');
    expect(csvField(12)).toBe('12');
  });
  it('keeps a title that looks like a formula from running in a spreadsheet', () => {
    expect(csvField('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvField('-1+2')).toBe("'-1+2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
  });
  it('lists new findings under the report and fixed ones under the baseline', () => {
    const side = (id: number, filename: string) => ({
      id,
      filename,
      format: 'zap',
      scannedAt: null,
      findingCount: 1,
    });
    const lines = [
      ...comparisonCsvLines({
        baseline: side(1, 'a.json'),
        report: side(2, 'b.json'),
        target: ['http://x'],
        baselineBy: 'caller',
        new: 1,
        fixed: 1,
        unchanged: 0,
        newFindings: [{ id: 20, title: 'New one', severity: 'high' }],
        fixedFindings: [{ id: 10, title: 'Old one', severity: 'low' }],
      }),
    ];
    expect(lines).toEqual([
      'change,finding_id,title,severity,report_id,report\r\n',
      'new,20,New one,high,2,b.json\r\n',
      'fixed,10,Old one,low,1,a.json\r\n',
    ]);
  });
});
