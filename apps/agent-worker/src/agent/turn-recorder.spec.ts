import 'reflect-metadata';
import { type CorpusQueryFns, CorpusTools } from '@corpus-chat/corpus-queries';
import type { ChatEventBody } from '@corpus-chat/contracts';
import type { DataSource } from 'typeorm';
import { TurnRecorder } from './turn-recorder';

/**
 * The real tool layer: a call of a tool it does not have is refused before any query, so it needs
 * no database (a query would throw on these stand-ins).
 */
const tools = new CorpusTools({} as DataSource, {} as CorpusQueryFns, () =>
  Promise.reject(new Error('no query expected')),
);

describe('TurnRecorder', () => {
  const record = async (name: string, rawArgs: unknown) => {
    const events: ChatEventBody[] = [];
    const rec = new TurnRecorder(
      {
        turnId: 'turn-1234-5678',
        signal: new AbortController().signal,
        emit: async (e) => void events.push(e as ChatEventBody),
      },
      tools,
    );
    const exec = await rec.callTool(name, rawArgs);
    return { events, stored: rec.metadata('m').toolCalls, evidence: rec.evidence, exec };
  };

  it('shows and records a call of an invented tool as failed, under its shown name, with its arguments', async () => {
    const { events, stored } = await record('delete_all_reports', '{"confirm":true}');
    expect(events.map((e) => e.type)).toEqual(['tool.call', 'tool.result']);
    expect(events[0]).toMatchObject({ name: 'delete_all_reports', args: { confirm: true } });
    const summary =
      "no such tool: the model asked for 'delete_all_reports', which is not one of the corpus tools; nothing was run";
    expect(events[1]).toMatchObject({ name: 'delete_all_reports', ok: false, summary });
    expect(stored).toEqual([
      {
        callId: events[0].type === 'tool.call' ? events[0].callId : '',
        name: 'delete_all_reports',
        args: { confirm: true },
        ok: false,
        summary,
      },
    ]);
  });

  it("keeps at most 2,000 characters of a failed call's arguments, as JSON or text", async () => {
    const huge = { text: 'a'.repeat(10_000) };
    const asJson = await record('made_up', JSON.stringify(huge));
    const shown = asJson.stored[0].args as string;
    expect(typeof shown).toBe('string');
    expect(shown.startsWith('{"text":"aaa')).toBe(true);
    expect(Array.from(shown)).toHaveLength(2001); // 2,000 and "…"
    const asText = await record('made_up', 'not json '.repeat(1000));
    expect(Array.from(asText.stored[0].args as string)).toHaveLength(2001);
    const small = await record('made_up', 'not json');
    expect(small.stored[0].args).toBe('not json');
  });

  it('keeps a failed call as evidence for the provenance check: its shown name, arguments and what the model was told', async () => {
    const { evidence, exec } = await record('delete_all_reports', '{"confirm":true}');
    expect(evidence).toEqual([
      { name: 'delete_all_reports', args: { confirm: true }, content: exec.modelContent },
    ]);
    expect(JSON.parse(evidence[0].content)).toEqual({ error: expect.stringContaining('delete_all_reports') });
  });
});
