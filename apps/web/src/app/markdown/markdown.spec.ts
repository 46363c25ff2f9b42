import { describe, expect, it } from 'vitest';
import { UNVERIFIED_TITLE, renderMarkdown } from './markdown';

const dom = (html: string): HTMLElement => {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
};

describe('renderMarkdown', () => {
  it('renders GFM tables as tables', () => {
    const el = dom(renderMarkdown('| Severity | Count |\n| --- | ---: |\n| critical | 70 |\n| high | 333 |'));
    expect(el.querySelectorAll('table tbody tr')).toHaveLength(2);
    expect(el.querySelector('th')?.textContent).toBe('Severity');
    expect(el.querySelector('tbody td:last-child')?.textContent).toBe('70');
  });

  it('shows a <script> in a finding title as text, never as an element', () => {
    const el = dom(
      renderMarkdown('Finding **#12**: <script>alert(1)</script> in <img src=x onerror=alert(2)> login'),
    );
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('img')).toBeNull();
    expect(el.textContent).toContain('<script>alert(1)</script>');
    expect(el.textContent).toContain('<img src=x onerror=alert(2)>');
    expect(el.querySelector('strong')?.textContent).toBe('#12');
  });

  it('removes javascript: and data: link targets, keeping the link text as text', () => {
    const el = dom(
      renderMarkdown(
        '[click me](javascript:alert(1)) and [data](data:text/html;base64,PHNjcmlwdD4=) and [ok](https://example.org/a)',
      ),
    );
    const links = Array.from(el.querySelectorAll('a'));
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.org/a']);
    expect(el.textContent?.trim()).toBe('click me and data and ok');
    expect(links[0].getAttribute('rel')).toBe('noopener noreferrer');
    expect(links[0].getAttribute('target')).toBe('_blank');
  });

  it("shows SARIF's relative location links ([a value](1)) as plain text", () => {
    const el = dom(renderMarkdown('XSS due to [a user-provided value](1) in `render()`.'));
    expect(el.querySelector('a')).toBeNull();
    expect(el.textContent?.trim()).toBe('XSS due to a user-provided value in render().');
    expect(el.querySelector('code')?.textContent).toBe('render()');
  });

  it('keeps code blocks as text', () => {
    const el = dom(renderMarkdown('```\n<b>not bold</b>\n```'));
    expect(el.querySelector('pre code')?.textContent).toBe('<b>not bold</b>\n');
    expect(el.querySelector('b')).toBeNull();
  });
});

describe('renderMarkdown with unverified numbers', () => {
  const marks = (el: HTMLElement): string[] =>
    Array.from(el.querySelectorAll('mark.unverified')).map((m) => m.textContent ?? '');

  it('marks each whole-number occurrence, with the title saying why', () => {
    const el = dom(renderMarkdown('The exact total is **84** findings; 84 of them are open.', ['84']));
    expect(marks(el)).toEqual(['84', '84']);
    expect(el.querySelector('strong > mark.unverified')).not.toBeNull();
    expect(el.querySelector('mark')?.getAttribute('title')).toBe(UNVERIFIED_TITLE);
    expect(el.textContent).toBe('The exact total is 84 findings; 84 of them are open.\n');
  });

  it('never marks a number inside a larger one (1,840, 184, 3.84, 84,000, 84.5, v84x)', () => {
    const el = dom(renderMarkdown('1,840 and 184 and 3.84 and 84,000 and 84.5 and v84x, but 84.', ['84']));
    expect(marks(el)).toEqual(['84']);
    expect(el.querySelector('mark')?.previousSibling?.textContent).toMatch(/but $/);
  });

  it('matches thousands separators and percentages as written', () => {
    const el = dom(
      renderMarkdown('Not backed: 1,204 findings (12.5%), not 1204 nor 204.', ['1,204', '12.5%', '204']),
    );
    expect(marks(el)).toEqual(['1,204', '12.5%', '204']);
  });

  it('marks numbers in list items and table cells without breaking the markup', () => {
    const el = dom(
      renderMarkdown(
        '| Severity | Count |\n| --- | ---: |\n| high | 84 |\n| low | 840 |\n\n- 84 open\n- 8 closed',
        ['84'],
      ),
    );
    expect(el.querySelectorAll('tbody tr')).toHaveLength(2);
    expect(el.querySelector('tbody tr:first-child td:last-child')?.innerHTML).toBe(
      '<mark class="unverified" title="' + UNVERIFIED_TITLE + '">84</mark>',
    );
    expect(el.querySelector('tbody tr:last-child td:last-child')?.textContent).toBe('840');
    expect(el.querySelector('li mark')?.textContent).toBe('84');
    expect(marks(el)).toEqual(['84', '84']);
  });

  it('keeps text that looks like HTML as text next to a mark', () => {
    const el = dom(renderMarkdown('<b>84</b> & 84 <script>x</script>', ['84']));
    expect(el.querySelector('b')).toBeNull();
    expect(el.querySelector('script')).toBeNull();
    expect(el.textContent).toContain('<b>84</b> & 84 <script>x</script>');
    expect(marks(el)).toEqual(['84', '84']);
  });

  it('leaves code blocks as written and marks nothing without numbers', () => {
    const el = dom(renderMarkdown('```\ntotal = 84\n```\n84 in prose', ['84']));
    expect(el.querySelector('pre code')?.textContent).toBe('total = 84\n');
    expect(marks(el)).toEqual(['84']);
    expect(renderMarkdown('84 findings', [])).toBe(renderMarkdown('84 findings'));
    expect(renderMarkdown('84 findings', [' '])).not.toContain('<mark');
  });
});

describe('renderMarkdown with finding ids', () => {
  const links = (html: string): [string, string | null][] => {
    const div = document.createElement('div');
    div.innerHTML = html;
    return Array.from(div.querySelectorAll('a'), (a) => [a.textContent!, a.getAttribute('href')]);
  };

  it('links "#42", "finding 7" and "Finding #9" to the finding pages, in lists and tables too', () => {
    expect(
      links(renderMarkdown('See #42 and finding 7.\n\n- Finding #9 (high)\n\n| id |\n|---|\n| #15 |')),
    ).toEqual([
      ['#42', '/reports/findings/42'],
      ['finding 7', '/reports/findings/7'],
      ['Finding #9', '/reports/findings/9'],
      ['#15', '/reports/findings/15'],
    ]);
    expect(renderMarkdown('#42')).not.toContain('target=');
  });

  it('leaves numbers that are not finding ids, code and existing links alone', () => {
    expect(links(renderMarkdown('42 findings, CWE-79, 3 findings 5 reports, a#1, #12.5'))).toEqual([]);
    expect(links(renderMarkdown('`#42` and\n\n```\nfinding 7\n```'))).toEqual([]);
    expect(links(renderMarkdown('[#42](https://example.com/42)'))).toEqual([
      ['#42', 'https://example.com/42'],
    ]);
  });

  it('still marks an unverified number inside a finding link', () => {
    expect(renderMarkdown('#84', ['84'])).toContain(
      '<a class="finding-link" href="/reports/findings/84">#<mark class="unverified"',
    );
  });
});

describe('renderMarkdown on hostile text', () => {
  // Imported descriptions are attacker-controlled and up to 100,000 characters; before the guard,
  // marked's link pattern took 8 s on the first text (cubic) and the tab froze while it ran.
  const timed = (source: string): { ms: number; html: string } => {
    const start = performance.now();
    const html = renderMarkdown(source);
    return { ms: performance.now() - start, html };
  };

  it('renders unclosed link openers and long link targets in bounded time', () => {
    for (const source of ['[a]('.repeat(1_500), '[a](<'.repeat(1_200), `[a](${' '.repeat(20_000)}`]) {
      const { ms, html } = timed(source);
      expect({ chars: source.length, fast: ms < 1000 }).toEqual({ chars: source.length, fast: true });
      expect(dom(html).textContent?.replace(/\s+/g, '')).toBe(source.replace(/\s+/g, ''));
    }
  });

  it('shows thousands of nested quotes as text instead of throwing', () => {
    const el = dom(renderMarkdown('>'.repeat(15_000)));
    expect(el.textContent).toBe('>'.repeat(15_000));
  });

  it('shows text past the Markdown budget as plain text, never as markup', () => {
    const source = `**bold** <b>x</b>\n${'_a'.repeat(50_000)}`;
    const { ms, html } = timed(source);
    expect(ms).toBeLessThan(1000);
    const el = dom(html);
    expect(el.querySelector('strong, b, em')).toBeNull();
    expect(el.textContent).toBe(source);
  });

  it('keeps a link longer than the scanned prefix usable, as a bare address after its label', () => {
    const url = `https://example.org/${'a'.repeat(600)}`;
    const el = dom(renderMarkdown(`[ref](${url}) and [ok](https://example.org/b)`));
    expect(Array.from(el.querySelectorAll('a')).map((a) => a.getAttribute('href'))).toEqual([
      url,
      'https://example.org/b',
    ]);
    expect(el.textContent?.trim()).toBe(`[ref](${url}) and ok`);
  });
});
