import { z } from 'zod';
import { envClass, envInt, validateEnv } from '@corpus-chat/server-core';

/**
 * Limits of the `/chat` Socket.IO gateway, per API instance (validated when the chat module starts;
 * a bad value stops the API naming the variable).
 */
export const chatSocketEnvSchema = z.looseObject({
  SOCKET_EVENTS_PER_SECOND: envInt(20, 1, 10_000).describe(
    'Events (`chat:join`, `chat:leave`, `chat:cancel`) one socket may send per second, with bursts of twice as many; further ones are refused (`Too many requests: slow down`), and a socket that keeps sending far past the limit is disconnected.',
  ),
  MAX_SOCKETS_PER_OPERATOR: envInt(20, 1, 10_000).describe(
    'Sockets one operator may hold open on one API instance; the next handshake is refused.',
  ),
});

export class ChatSocketEnv extends envClass(chatSocketEnvSchema) {}

/** Validates `ChatSocketEnv` from `raw` (default `process.env`); throws `ConfigError`. */
export const loadChatSocketEnv = (raw: Record<string, unknown> = process.env): ChatSocketEnv =>
  validateEnv(ChatSocketEnv, raw);
