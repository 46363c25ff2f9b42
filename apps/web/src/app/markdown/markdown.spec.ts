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

  it('removes javascript: and data: link targets, keeping the link text as text', () => {
    const el = dom(renderMarkdown('[click me](javascript:alert(1)) and [data](data:text/html;base64,PHNjcmlwdD4=) and [ok](https://example.org/a)'));
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
