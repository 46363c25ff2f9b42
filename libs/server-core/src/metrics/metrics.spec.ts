import fs from 'node:fs';
import path from 'node:path';
import { metricsRegistry } from './metrics';

describe('metrics', () => {
  it('every metric the Grafana dashboard (deploy/grafana) queries is one this process registers', () => {
    const file = path.resolve(__dirname, '../../../../deploy/grafana/corpus-chat.json');
    const dashboard = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      panels: { targets: { expr: string }[] }[];
    };
    const queried = new Set(
      dashboard.panels
        .flatMap((p) => p.targets.map((t) => t.expr))
        .flatMap((expr) => expr.match(/\b(corpus_chat|nodejs|process)_[a-z0-9_]+/g) ?? [])
        .map((name) => name.replace(/_(bucket|count|sum)$/, '')),
    );
    const registered = new Set(metricsRegistry.getMetricsAsArray().map((m) => m.name));
    expect([...queried].filter((name) => !registered.has(name))).toEqual([]);
    expect(queried.size).toBeGreaterThan(10);
  });

  it('labels carry no ids: only bounded label names', () => {
    const labels = new Set(
      metricsRegistry
        .getMetricsAsArray()
        .flatMap((m) => (m as unknown as { labelNames?: string[] }).labelNames ?? []),
    );
    expect([...labels].filter((l) => /id$/i.test(l))).toEqual([]);
  });
});
