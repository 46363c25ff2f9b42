/**
 * Scenario 5's publisher process, standing in for the workers: streams turns through the real
 * `TurnEventStream` and `TurnEventBus`, each delta's text `<emit time ms>|`; writes publish times
 * and its CPU seconds to `outFile`. Config: env `FAN_OUT_CONFIG`. IPC: 'ready', 'go', 'done'.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Redis } from 'ioredis';
import { RedisKeys, TurnEventBus } from '@corpus-chat/server-core';
import { TurnEventStream } from '../../apps/agent-worker/src/turns/turn-event-stream';

interface Config {
  redisUrl: string;
  prefix: string;
  chats: string[];
  tokensPerSecond: number;
  tokensPerTurn: number;
  durationMs: number;
  coalesceMs: number;
  outFile: string;
}

const config = JSON.parse(process.env['FAN_OUT_CONFIG'] ?? '{}') as Config;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function main(): Promise<void> {
  const redis = new Redis(config.redisUrl, { connectionName: 'bench-fan-out-publisher' });
  const bus = new TurnEventBus(redis, new RedisKeys(config.prefix));
  await redis.ping();
  /** `${turnId}:${seq}` → publish start (ms). */
  const published: Record<string, number> = {};
  let publishes = 0;
  let tokens = 0;
  process.send?.('ready');
  await new Promise<void>((resolve) => process.once('message', () => resolve()));
  const cpu0 = process.cpuUsage();
  const until = nowMs() + config.durationMs;
  const intervalMs = 1000 / config.tokensPerSecond;

  const streamChat = async (chatId: string, offset: number) => {
    await new Promise((r) => setTimeout(r, offset));
    // One absolute schedule per thread: exactly tokensPerSecond over the run, turn boundaries included.
    let next = nowMs();
    while (nowMs() < until) {
      const turnId = randomUUID();
      const stream = new TurnEventStream(async (event) => {
        const t = nowMs();
        const e = await bus.publish(chatId, turnId, event);
        publishes++;
        if (e) published[`${turnId}:${e.seq}`] = t;
      }, config.coalesceMs);
      for (let i = 0; i < config.tokensPerTurn && nowMs() < until; i++) {
        next += intervalMs;
        tokens++;
        await stream.emit({ type: 'text.delta', text: `${nowMs().toFixed(3)}|` });
        const wait = next - nowMs();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await stream.settled();
      await bus.publish(chatId, turnId, { type: 'turn.done', messageId: randomUUID() });
    }
  };
  await Promise.all(
    config.chats.map((chatId, i) => streamChat(chatId, (i * intervalMs) / config.chats.length)),
  );
  const usage = process.cpuUsage(cpu0);
  fs.writeFileSync(
    config.outFile,
    JSON.stringify({ published, publishes, tokens, cpuSeconds: (usage.user + usage.system) / 1e6 }),
  );
  redis.disconnect();
  process.send?.('done');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
