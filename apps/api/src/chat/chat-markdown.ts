import type { AssistantMessageMetadata, ChatDetailView, ChatMessageView } from '@corpus-chat/contracts';

/** One line of text: a title or tool summary must not open a heading, list or block of its own. */
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

function messageMarkdown(m: ChatMessageView): string {
  const who = m.role === 'user' ? 'Operator' : 'Assistant';
  const status = m.status === 'complete' ? '' : ` (${m.status})`;
  const parts = [`## ${who} · ${m.createdAt}${status}`];
  const calls = (m.metadata as Partial<AssistantMessageMetadata>).toolCalls ?? [];
  if (calls.length > 0) {
    parts.push(
      calls.map((c) => `- Tool \`${c.name}\`${c.ok ? '' : ' (failed)'}: ${oneLine(c.summary)}`).join('\n'),
    );
  }
  if (m.content) parts.push(m.content);
  return parts.join('\n\n');
}

/** A thread as Markdown: headings per message, tool calls as one line each, text verbatim, no reasoning. */
export function chatMarkdown(chat: ChatDetailView): string {
  return `${[`# ${oneLine(chat.title) || 'Untitled thread'}`, ...chat.messages.map(messageMarkdown)].join('\n\n')}\n`;
}
