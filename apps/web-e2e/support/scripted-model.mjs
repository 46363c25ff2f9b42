/**
 * The agent's scripted OpenAI-compatible server (apps/agent-worker/src/agent/testing), as the
 * browser tests drive it: a scenario says what the next streamed completions answer, then points
 * the Settings page at `baseUrl`.
 */
import path from 'node:path';
import { createRequire } from 'node:module';
import { root } from './paths.mjs';

const require = createRequire(import.meta.url);

export class ScriptedModel {
  /** @param {any} server the started ScriptedOpenAiServer */
  constructor(server, script) {
    this.server = server;
    /** Builders of scripted answers (`script.text`, `script.toolCall`). */
    this.script = script;
    /**
     * What the next streamed completions answer: `{ words, delayMs }` streams the words as one
     * answer every time; `{ steps }` answers the n-th streamed request after the script was set
     * with `steps[n]` (a `ScriptedResponse`), repeating the last step after that, so one turn's
     * tool loop (tool call, then answer, then any re-ask) can be scripted in order.
     */
    this.current = { words: ['Hello.'], delayMs: 0 };
    this.served = 0;
    server.models = ['e2e-slow-model'];
    server.responder = (req) => this.respond(req);
  }

  static async start() {
    // The server is TypeScript, loaded with the repository's SWC require hook.
    require(path.join(root, 'tools', 'build', 'register.cjs'));
    const scripted = require(
      path.join(root, 'apps', 'agent-worker', 'src', 'agent', 'testing', 'scripted-openai-server.ts'),
    );
    return new ScriptedModel(await scripted.ScriptedOpenAiServer.start(), scripted.script);
  }

  /** Base URL as the Settings page takes it. */
  get baseUrl() {
    return this.server.baseUrl;
  }

  /** Chat-completions requests received so far (with when and how each connection closed). */
  get completionRequests() {
    return this.server.completionRequests;
  }

  /** Every streamed answer is `words`, one chunk per word, `delayMs` apart. */
  streamWords(words, delayMs = 0) {
    this.current = { words, delayMs };
    this.served = 0;
  }

  /** The n-th streamed request from now is answered with `steps[n]`, then the last step again. */
  playSteps(steps) {
    this.current = { steps };
    this.served = 0;
  }

  reset() {
    this.streamWords(['Hello.']);
  }

  respond(req) {
    // Test connection: a plain completion, and a question that needs a tool (answered with a call).
    if (!req.body?.stream)
      return req.body?.tools
        ? { kind: 'completion', text: '', toolCalls: [{ name: 'get_corpus_overview', arguments: {} }] }
        : { kind: 'completion', text: 'pong' };
    const { steps, words, delayMs } = this.current;
    if (steps) return steps[Math.min(this.served++, steps.length - 1)];
    return {
      kind: 'stream',
      chunkDelayMs: delayMs,
      chunks: [...words.map((w, i) => ({ text: i === 0 ? w : ` ${w}` })), { finish: 'stop' }],
    };
  }

  close() {
    return this.server.close();
  }
}
