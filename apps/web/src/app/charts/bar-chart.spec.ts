import { describe, expect, it } from 'vitest';
import { barChartConfig } from './bar-chart';

describe('barChartConfig', () => {
  it('draws one horizontal bar per group, in order, with its count and colour, whole-number ticks and no legend', () => {
    const config = barChartConfig(
      [
        { label: 'critical', count: 3, colour: '#8e1b1b' },
        { label: 'info', count: 0, colour: '#64748b' },
      ],
      { text: '#5d6b7e', grid: '#dde3ea' },
    );
    expect(config.type).toBe('bar');
    expect(config.options?.indexAxis).toBe('y');
    expect(config.data.labels).toEqual(['critical', 'info']);
    expect(config.data.datasets[0]!.data).toEqual([3, 0]);
    expect(config.data.datasets[0]!.backgroundColor).toEqual(['#8e1b1b', '#64748b']);
    expect(config.options?.plugins?.legend?.display).toBe(false);
    const x = config.options?.scales?.['x'] as { beginAtZero: boolean; ticks: { precision: number } };
    expect(x.beginAtZero).toBe(true);
    expect(x.ticks.precision).toBe(0);
  });
});
