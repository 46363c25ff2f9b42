import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import type { OperatorRole } from '@corpus-chat/contracts';

/**
 * Channel the `operators` table notifies on every UPDATE or DELETE, with the operator id as
 * payload (trigger of migration 1764500400000-OperatorsChangeNotify).
 */
export const OPERATOR_CHANGED_CHANNEL = 'operator_changed';

/** Longest an entry is trusted without a notice (ms): a bound for a listener cut off unnoticed. */
export const OPERATOR_CACHE_TTL_MS = 10_000;
/** Wait before listening again after the listening connection failed (ms). */
const RELISTEN_MS = 1_000;

/** What a session check needs of an operator. */
export interface CachedOperator {
  id: string;
  username: string;
  displayName: string;
  role: OperatorRole;
  disabled: boolean;
  /** Token version: session tokens of any other version are refused. */
  tokenVersion: number;
}

interface Entry {
  operator: CachedOperator;
  at: number;
}

/**
 * The operators of recent sessions, kept in memory so a request's session check needs no
 * Postgres round trip. An entry is dropped
 * - at once, in this process, by `forget(id)` (the operators service and a password change call
 *   it after their change commits);
 * - on every API instance when Postgres notifies `OPERATOR_CHANGED_CHANNEL` for the operator (any
 *   UPDATE or DELETE of the row, whoever makes it);
 * - after `OPERATOR_CACHE_TTL_MS` regardless.
 * While the listening connection is not up (at start, after an error) the cache answers nothing,
 * so every check reads Postgres; it is emptied when listening (re)starts. A lookup that raced with
 * a change is not stored (`load` compares a generation counter taken before the read).
 */
@Injectable()
export class OperatorCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OperatorCache.name);
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every drop: a read that started before a drop must not be stored. */
  private generation = 0;
  private listener?: Client;
  private listening = false;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(private readonly db: DataSource) {}

  async onModuleInit(): Promise<void> {
    await this.listen();
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.listening = false;
    await this.listener?.end().catch(() => undefined);
  }

  /** Whether entries are served (the change notices are being received). */
  get active(): boolean {
    return this.listening;
  }

  /**
   * The operator `id`, from memory when a fresh entry exists, else read with `read` (null: no such
   * operator, not stored). Errors of `read` are thrown as they are.
   */
  async load(id: string, read: (id: string) => Promise<CachedOperator | null>): Promise<CachedOperator | null> {
    const hit = this.listening ? this.entries.get(id) : undefined;
    if (hit && Date.now() - hit.at < OPERATOR_CACHE_TTL_MS) return hit.operator;
    const generation = this.generation;
    const operator = await read(id);
    if (operator && this.listening && generation === this.generation) {
      this.entries.set(id, { operator, at: Date.now() });
    } else if (!operator) {
      this.entries.delete(id);
    }
    return operator;
  }

  /** Drops the entry of operator `id` (call after a change to the operator has committed). */
  forget(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Opens a connection of its own (not one of the pool) and LISTENs; retries every second on failure. */
  private async listen(): Promise<void> {
    if (this.stopped) return;
    const pool = (this.db.driver as PostgresDriver).master as { options: ClientConfig } | undefined;
    if (!pool) return; // not connected: stay inactive (every check reads Postgres)
    const client = new Client({ ...pool.options, keepAlive: true });
    const lost = (why: string) => {
      if (this.listener !== client) return;
      this.listening = false;
      this.listener = undefined;
      this.clear();
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.logger.warn({ msg: 'operator change notices lost; sessions read Postgres until listening again', err: why });
      this.retry = setTimeout(() => void this.listen(), RELISTEN_MS);
      this.retry.unref();
    };
    this.listener = client;
    client.on('error', (e: Error) => lost(e.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (n) => {
      if (n.channel === OPERATOR_CHANGED_CHANNEL && n.payload) this.forget(n.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${OPERATOR_CHANGED_CHANNEL}`);
      if (this.listener !== client || this.stopped) return;
      this.clear(); // changes made while no one listened
      this.listening = true;
    } catch (e) {
      lost((e as Error).message);
    }
  }
}
