import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  LinearScale,
  Tooltip,
  type ChartConfiguration,
} from 'chart.js';

// Only the parts a horizontal bar chart needs, registered once when this module first loads (it is
// imported lazily, so Chart.js stays out of the first paint).
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

/** One bar: its label, its count (findings) and its fill colour (any CSS colour). */
export interface Bar {
  label: string;
  count: number;
  colour: string;
}

/** Colours of the chart's text and grid, read from the page's theme tokens. */
export interface ChartInk {
  text: string;
  grid: string;
}

/**
 * A horizontal bar chart of counts, one bar per group in the given order, integer ticks, no legend
 * (the labels name the bars) and no animation (an answer is read, not watched).
 */
export function barChartConfig(bars: readonly Bar[], ink: ChartInk): ChartConfiguration<'bar'> {
  return {
    type: 'bar',
    data: {
      labels: bars.map((b) => b.label),
      datasets: [
        {
          label: $localize`:@@chart.findings:Findings`,
          data: bars.map((b) => b.count),
          backgroundColor: bars.map((b) => b.colour),
          borderRadius: 3,
          maxBarThickness: 22,
        },
      ],
    },
    options: {
      indexAxis: 'y',
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      plugins: { legend: { display: false }, tooltip: { enabled: true } },
      scales: {
        x: { beginAtZero: true, ticks: { precision: 0, color: ink.text }, grid: { color: ink.grid } },
        y: { ticks: { color: ink.text }, grid: { display: false } },
      },
    },
  };
}

/** Draws `bars` on `canvas`; the caller destroys the returned chart. */
export function drawBarChart(canvas: HTMLCanvasElement, bars: readonly Bar[], ink: ChartInk): Chart<'bar'> {
  return new Chart(canvas, barChartConfig(bars, ink));
}
