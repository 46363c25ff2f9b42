import { ModelStreamError, parseSse } from './chat-completions-stream';

async function collect(pieces: (string | Buffer)[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const chunk of parseSse((async function* () { yield* pieces; })())) out.push(chunk);
  return out;
}

describe('parseSse: the chat-completions event stream', () => {
  it('yields each data event, across arbitrary splits, CRLF line ends, comments and other fields, until [DONE]', async () => {
    const text = ': keep-alive\r\ndata: {"id":"a","choices":[]}\r\n\r\nevent: x\nid: 2\ndata: {"id":"b",\ndata: "choices":[]}\n\ndata: [DONE]\n\ndata: {"id":"after"}\n\n';
    const bytes = Buffer.from(text);
    // Split inside lines and inside a multi-byte-free payload, byte by byte in one place.
    const pieces = [bytes.subarray(0, 7), bytes.subarray(7, 30), ...[...bytes.subarray(30, 40)].map((b) => Buffer.from([b])), bytes.subarray(40)];
    expect(await collect(pieces)).toEqual([{ id: 'a', choices: [] }, { id: 'b', choices: [] }]);
  });

  it('decodes UTF-8 split between chunks and flushes a last event without its blank line', async () => {
    const bytes = Buffer.from('data: {"t":"é✓"}\n\ndata: {"t":"end"}');
    expect(await collect([bytes.subarray(0, 13), bytes.subarray(13)])).toEqual([{ t: 'é✓' }, { t: 'end' }]);
  });

  it('throws a SyntaxError for a malformed event and ModelStreamError for an error event', async () => {
    await expect(collect(['data: {"choices": [ {"delta": \n\n'])).rejects.toThrow(SyntaxError);
    await expect(collect(['data: {"error":{"message":"model crashed"}}\n\n'])).rejects.toThrow(new ModelStreamError('model crashed'));
  });
});
