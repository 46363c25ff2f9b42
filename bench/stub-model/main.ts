/**
 * The benchmark's stub model: an OpenAI-compatible server (the agent tests' `ScriptedOpenAiServer`)
 * scripted by `STUB_MODEL_CONFIG` (JSON `StubModelConfig`), run as its own process so its CPU is
 * accounted apart. Prints `STUB_MODEL_READY <baseUrl>` once listening; stops on SIGTERM.
 */
import {
  ScriptedOpenAiServer,
  type ScriptChunk,
  type ScriptedResponse,
} from '../../apps/agent-worker/src/agent/testing/scripted-openai-server';
import { DEFAULT_STUB_MODEL, type StubModelConfig } from './stub-model.config';

const config: StubModelConfig = {
  ...DEFAULT_STUB_MODEL,
  ...JSON.parse(process.env['STUB_MODEL_CONFIG'] ?? '{}'),
};

function respond(body: { messages?: { role: string }[] } | undefined): ScriptedResponse {
  const toolResults = (body?.messages ?? []).filter((m) => m.role === 'tool').length;
  const next = config.toolCalls[toolResults];
  if (next) {
    const id = `call_${toolResults}`;
    return {
      kind: 'stream',
      firstChunkDelayMs: config.ttftMs,
      chunks: [
        { toolCall: { index: 0, id, name: next.name, args: JSON.stringify(next.args) } },
        { finish: 'tool_calls' },
      ],
    };
  }
  const chunks: ScriptChunk[] = [];
  for (let i = 0; i < config.deltas; i++) chunks.push({ text: `token${i} ` });
  chunks.push({ finish: 'stop' });
  return {
    kind: 'stream',
    firstChunkDelayMs: config.toolCalls.length ? config.answerTtftMs : config.ttftMs,
    chunkDelayMs: config.deltaIntervalMs,
    chunks,
  };
}

async function main(): Promise<void> {
  const server = await ScriptedOpenAiServer.start();
  server.models = ['bench-stub'];
  server.responder = (req) => respond(req.body);
  // The scripted server keeps every request for tests to inspect; a benchmark only needs the last few.
  setInterval(() => server.requests.splice(0, server.requests.length), 1000).unref();
  process.on('SIGTERM', () => void server.close().finally(() => process.exit(0)));
  console.log(`STUB_MODEL_READY ${server.baseUrl}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
