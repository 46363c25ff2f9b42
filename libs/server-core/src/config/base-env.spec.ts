import 'reflect-metadata';
import { clusterNodes } from '../redis/redis-connection';
import { ServerEnv } from './base-env';
import { ConfigError, validateEnv } from './validate-env';

describe('ServerEnv.DB_POOL_SIZE', () => {
  it('defaults to 10 connections and reads a number from the environment string', () => {
    expect(validateEnv(ServerEnv, {}).DB_POOL_SIZE).toBe(10);
    expect(validateEnv(ServerEnv, { DB_POOL_SIZE: '40' }).DB_POOL_SIZE).toBe(40);
  });

  it('refuses a pool of no connection or a value that is not a whole number, naming the variable', () => {
    for (const bad of ['0', '2.5', 'many']) {
      expect(() => validateEnv(ServerEnv, { DB_POOL_SIZE: bad })).toThrow(ConfigError);
      expect(() => validateEnv(ServerEnv, { DB_POOL_SIZE: bad })).toThrow(/DB_POOL_SIZE/);
    }
  });
});

describe('ServerEnv.REDIS_PREFIX', () => {
  test('takes a prefix without the separator, which the key names add', () => {
    expect(validateEnv(ServerEnv, { REDIS_PREFIX: 'team-a:prod' }).REDIS_PREFIX).toBe('team-a:prod');
  });
  test('refuses a trailing ":" (keys would read "x::…") and other characters, naming the setting', () => {
    for (const bad of ['newuser:', 'a b', 'x'.repeat(65)]) {
      expect(() => validateEnv(ServerEnv, { REDIS_PREFIX: bad })).toThrow(/REDIS_PREFIX/);
    }
  });
});

describe('ServerEnv.REDIS_CLUSTER_NODES', () => {
  test('is empty by default (one Redis) and takes host:port seed nodes, which become cluster seeds', () => {
    expect(clusterNodes(validateEnv(ServerEnv, {}))).toEqual([]);
    const env = validateEnv(ServerEnv, { REDIS_CLUSTER_NODES: '10.0.0.1:7000,redis-b.internal:7001' });
    expect(clusterNodes(env)).toEqual([
      { host: '10.0.0.1', port: 7000 },
      { host: 'redis-b.internal', port: 7001 },
    ]);
  });
  test('refuses a URL, a node without a port or a space, naming the setting', () => {
    for (const bad of ['redis://10.0.0.1:7000', '10.0.0.1', '10.0.0.1:7000, 10.0.0.2:7000']) {
      expect(() => validateEnv(ServerEnv, { REDIS_CLUSTER_NODES: bad })).toThrow(/REDIS_CLUSTER_NODES/);
    }
  });
});
