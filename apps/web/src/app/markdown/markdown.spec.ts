import { describe, expect, it } from 'vitest';
import { renderMarkdown } from './markdown';

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
    const el = dom(renderMarkdown('Finding **#12**: <script>alert(1)</script> in <img src=x onerror=alert(2)> login'));
    expect(el.querySelector('script')).toBeNull();
    expect(el.querySelector('img')).toBeNull();
    expect(el.textContent).toContain('<script>alert(1)</script>');
    expect(el.textContent).toContain('<img src=x onerror=alert(2)>');
    expect(el.querySelector('strong')?.textContent).toBe('#12');
  });

  it('removes javascript: and data: link targets but keeps the link text', () => {
    const el = dom(renderMarkdown('[click me](javascript:alert(1)) and [data](data:text/html;base64,PHNjcmlwdD4=) and [ok](https://example.org/a)'));
    const links = Array.from(el.querySelectorAll('a'));
    expect(links.map((a) => a.getAttribute('href'))).toEqual([null, null, 'https://example.org/a']);
    expect(el.textContent).toContain('click me');
    expect(links[2].getAttribute('rel')).toBe('noopener noreferrer');
    expect(links[2].getAttribute('target')).toBe('_blank');
  });

  it('keeps code blocks as text', () => {
    const el = dom(renderMarkdown('```\n<b>not bold</b>\n```'));
    expect(el.querySelector('pre code')?.textContent).toBe('<b>not bold</b>\n');
    expect(el.querySelector('b')).toBeNull();
  });
});
