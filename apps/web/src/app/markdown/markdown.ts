import { ChangeDetectionStrategy, Component, ViewEncapsulation, computed, inject, input } from '@angular/core';
import { DomSanitizer, type SafeHtml } from '@angular/platform-browser';
import DOMPurify from 'dompurify';
import { Marked } from 'marked';

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * GitHub-flavoured Markdown (tables, lists, code) where raw HTML is never HTML: a finding title
 * such as `<script>alert(1)</script>` quoted by the agent shows as that text.
 */
const markdown = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
  },
});

let hooksInstalled = false;
function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  // Links open in a new tab without giving it a handle on this one.
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.getAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

/**
 * Markdown to safe HTML: `marked` renders (raw HTML escaped to text), then DOMPurify removes
 * anything executable that Markdown itself can produce (`javascript:`/`data:` link targets, event
 * attributes). Only the elements Markdown makes are allowed. A link whose target was removed (or a
 * relative one such as SARIF's `[a value](1)`, which points into the report) stays as its text,
 * not as a dead link.
 */
export function renderMarkdown(source: string): string {
  installHooks();
  const html = markdown.parse(source) as string;
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS: [
      'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'a', 'ul', 'ol', 'li',
      'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'input',
    ],
    ALLOWED_ATTR: ['href', 'title', 'align', 'start', 'type', 'checked', 'disabled'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|\/|#)/i,
  });
  for (const a of Array.from(fragment.querySelectorAll('a:not([href])'))) a.replaceWith(...Array.from(a.childNodes));
  const out = document.createElement('div');
  out.append(fragment);
  return out.innerHTML;
}

/** Renders an assistant answer's Markdown (sanitised by `renderMarkdown`). */
@Component({
  selector: 'cc-markdown',
  template: '<div class="md" [innerHTML]="html()"></div>',
  styleUrl: './markdown.css',
  // The rendered HTML is set through innerHTML, so it carries no emulated-encapsulation attributes:
  // the styles are global, scoped by the `.md` class instead.
  encapsulation: ViewEncapsulation.None,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class MarkdownView {
  private readonly sanitizer = inject(DomSanitizer);
  readonly source = input.required<string>();
  // DOMPurify already removed everything unsafe; Angular's own sanitizer would strip the table and
  // task-list markup it does not know and warn on every delta.
  protected readonly html = computed<SafeHtml>(() => this.sanitizer.bypassSecurityTrustHtml(renderMarkdown(this.source())));
}
