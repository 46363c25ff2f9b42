import 'reflect-metadata';
import { MAX_MESSAGE_CHARS, TRUNCATION_MARK } from '@corpus-chat/contracts';
import { autoTitle, truncateMessage } from './message-text';

describe('truncateMessage', () => {
  it('keeps a message within the limit as it is', () => {
    expect(truncateMessage('Short question?')).toEqual({ content: 'Short question?', truncated: false });
    const exact = 'x'.repeat(MAX_MESSAGE_CHARS);
    expect(truncateMessage(exact)).toEqual({ content: exact, truncated: false });
  });

  it('cuts at the last sentence end that fits and marks the cut', () => {
    const sentence = 'This finding repeats. ';
    const long = sentence.repeat(Math.ceil((MAX_MESSAGE_CHARS + 500) / sentence.length));
    const { content, truncated } = truncateMessage(long);
    expect(truncated).toBe(true);
    expect(content.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
    expect(content.endsWith(`repeats. ${TRUNCATION_MARK}`)).toBe(true);
    expect(content.length).toBeGreaterThan(MAX_MESSAGE_CHARS - sentence.length - TRUNCATION_MARK.length - 2);
  });

  it('falls back to a word boundary, then a hard cut, without splitting a surrogate pair', () => {
    const words = truncateMessage('word '.repeat(30), 40);
    expect(words.content).toBe(`word word word word word ${TRUNCATION_MARK}`);
    expect(words.content.length).toBeLessThanOrEqual(40);
    const emoji = '😀'.repeat(30); // 60 UTF-16 units, no spaces
    const cut = truncateMessage(emoji, 40);
    expect(cut.content.length).toBeLessThanOrEqual(40);
    expect(cut.content).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(cut.content.endsWith(TRUNCATION_MARK)).toBe(true);
  });
});

describe('autoTitle', () => {
  it('keeps a short first message and collapses white space', () => {
    expect(autoTitle('  How many   critical\nfindings?  ')).toBe('How many critical findings?');
  });

  it('cuts a long message at a word boundary to at most 60 characters', () => {
    const title = autoTitle(
      'Which reports contain SQL injection findings of high severity in the payment service and why?',
    );
    expect(title.length).toBeLessThanOrEqual(60);
    expect(title).toBe('Which reports contain SQL injection findings of high…');
  });
});
