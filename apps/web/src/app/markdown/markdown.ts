import {
  ChangeDetectionStrategy,
  Component,
  ViewEncapsulation,
  computed,
  inject,
  input,
} from '@angular/core';
import { DomSanitizer, type SafeHtml } from '@angular/platform-browser';
import { Router } from '@angular/router';
import DOMPurify from 'dompurify';
import { Marked, Tokenizer } from 'marked';

const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/**
 * Longer text is shown as plain text: some of marked's inline rules are quadratic (a long run of
 * `_a`, an address without a domain), and imported descriptions are written by whoever wrote the
 * report, up to 100,000 characters.
 */
const MARKDOWN_MAX_CHARS = 20_000;

/**
 * Characters marked's link pattern may scan from a `[`: on a run of unclosed `[a](` it is cubic
 * in what it scans. A longer link shows as its label, its address still linked as a bare URL.
 */
const LINK_SCAN_CHARS = 512;

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
  tokenizer: {
    // `false` (a short rest of the text) hands over to marked's own link rule.
    link(src) {
      return (
        src.length > LINK_SCAN_CHARS && Tokenizer.prototype.link.call(this, src.slice(0, LINK_SCAN_CHARS))
      );
    },
  },
});

/** `source` as one paragraph of text (its line breaks kept by `.plain`). */
function plainText(source: string): DocumentFragment {
  const p = document.createElement('p');
  p.className = 'plain';
  p.textContent = source;
  const fragment = document.createDocumentFragment();
  fragment.append(p);
  return fragment;
}

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
 * Markdown to safe HTML: `marked` (raw HTML escaped) then DOMPurify, allowing only Markdown's
 * elements. A link whose target was removed or is relative stays as its text.
 */
export function renderMarkdown(source: string, unverified: readonly string[] = []): string {
  installHooks();
  const fragment = source.length > MARKDOWN_MAX_CHARS ? plainText(source) : sanitisedMarkdown(source);
  linkFindingIds(fragment);
  markUnverified(fragment, unverified);
  const out = document.createElement('div');
  out.append(fragment);
  return out.innerHTML;
}

function sanitisedMarkdown(source: string): DocumentFragment {
  let html: string;
  try {
    html = markdown.parse(source) as string;
  } catch (e) {
    // Thousands of nested quotes or lists overflow marked's stack: show the text as it is.
    if (e instanceof RangeError) return plainText(source);
    throw e;
  }
  const fragment = DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS: [
      'p',
      'br',
      'hr',
      'strong',
      'em',
      'del',
      'code',
      'pre',
      'blockquote',
      'a',
      'ul',
      'ol',
      'li',
      'h1',
      'h2',
      'h3',
      'h4',
      'h5',
      'h6',
      'table',
      'thead',
      'tbody',
      'tr',
      'th',
      'td',
      'input',
    ],
    ALLOWED_ATTR: ['href', 'title', 'align', 'start', 'type', 'checked', 'disabled'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|\/|#)/i,
  });
  for (const a of Array.from(fragment.querySelectorAll('a:not([href])')))
    a.replaceWith(...Array.from(a.childNodes));
  return fragment;
}

/** "#42", "finding 42", "Finding #42": a finding id as answers write it (group 1 or 2 is the id). */
const FINDING_ID = /(?<![\p{L}\p{N}&#])(?:#(\d{1,9})|\bfinding\s+#?(\d{1,9}))(?![\p{L}\p{N}]|[.,]\p{N})/giu;

/** Class of the links `linkFindingIds` makes (the view routes their clicks in the app). */
export const FINDING_LINK_CLASS = 'finding-link';

/**
 * Turns each finding id written in the answer's text into a link to that finding's page. Text in
 * code, code blocks and existing links is left alone.
 */
function linkFindingIds(root: DocumentFragment): void {
  wrapMatches(root, FINDING_ID, 'pre, code, a', (match) => {
    const a = document.createElement('a');
    a.className = FINDING_LINK_CLASS;
    a.href = `/reports/findings/${match[1] ?? match[2]}`;
    return a;
  });
}

/**
 * Puts each match of `pattern` in the text nodes of `root` (outside elements matching `skip`) into
 * the element `make` returns for it.
 */
function wrapMatches(
  root: DocumentFragment,
  pattern: RegExp,
  skip: string,
  make: (match: RegExpExecArray) => HTMLElement,
): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.parentElement?.closest(skip)) texts.push(n as Text);
  }
  for (const text of texts) {
    const value = text.data;
    const pieces: (string | Node)[] = [];
    let from = 0;
    for (const match of value.matchAll(pattern)) {
      const element = make(match);
      element.textContent = match[0];
      pieces.push(value.slice(from, match.index), element);
      from = match.index + match[0].length;
    }
    if (from === 0) continue;
    pieces.push(value.slice(from));
    text.replaceWith(...pieces.filter((p) => p !== ''));
  }
}

/** Shown on each highlighted number. */
export const UNVERIFIED_TITLE = $localize`:@@answer.unverifiedTitle:No tool result of this turn supports this number`;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A pattern matching any of `numbers` as written, as a whole number ("84" not in "1,840", "3.84" or
 * "84,000"); null when there are none.
 */
export function unverifiedNumberPattern(numbers: readonly string[]): RegExp | null {
  const wanted = [...new Set(numbers.map((n) => n.trim()).filter((n) => n.length > 0))];
  if (!wanted.length) return null;
  // Longest first, so "1,204" wins over a listed "204" at the same position.
  const alternatives = wanted
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
  return new RegExp(
    `(?<![\\p{L}\\p{N}])(?<!\\p{N}[.,])(?:${alternatives})(?![\\p{L}\\p{N}])(?![.,]\\p{N})`,
    'giu',
  );
}

/** Marks each whole-number occurrence of `numbers` in the sanitised DOM's text nodes, outside code. */
function markUnverified(root: DocumentFragment, numbers: readonly string[]): void {
  const pattern = unverifiedNumberPattern(numbers);
  if (!pattern) return;
  wrapMatches(root, pattern, 'pre', () => {
    const mark = document.createElement('mark');
    mark.className = 'unverified';
    mark.title = UNVERIFIED_TITLE;
    return mark;
  });
}

/** Renders an assistant answer's Markdown (sanitised by `renderMarkdown`). */
@Component({
  selector: 'cc-markdown',
  template: '<div class="md" [innerHTML]="html()"></div>',
  // Clicks on the rendered links bubble here (Enter on a focused link clicks it too).
  host: { '(click)': 'openFindingLink($event)' },
  styleUrl: './markdown.css',
  // The rendered HTML is set through innerHTML, so it carries no emulated-encapsulation attributes:
  // the styles are global, scoped by the `.md` class instead.
  encapsulation: ViewEncapsulation.None,
  changeDetection: ChangeDetectionStrategy.OnPush,
})
export class MarkdownView {
  private readonly sanitizer = inject(DomSanitizer);
  private readonly router = inject(Router);
  readonly source = input.required<string>();
  /** Numbers as written in the answer that no tool result supports; highlighted where they occur. */
  readonly unverified = input<readonly string[]>([]);
  // DOMPurify already removed everything unsafe; Angular's own sanitizer would strip the table and
  // task-list markup it does not know and warn on every delta.
  protected readonly html = computed<SafeHtml>(() =>
    this.sanitizer.bypassSecurityTrustHtml(renderMarkdown(this.source(), this.unverified())),
  );

  /** A finding link opens the finding in the app (a modified click still opens a new tab). */
  protected openFindingLink(event: MouseEvent): void {
    const link = (event.target as Element | null)?.closest?.(`a.${FINDING_LINK_CLASS}`);
    if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)
      return;
    event.preventDefault();
    void this.router.navigateByUrl(link.getAttribute('href')!);
  }
}
