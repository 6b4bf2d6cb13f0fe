import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

interface Props {
  title: string;
  /** Bucket starts, seconds since the epoch, ascending. */
  times: number[];
  series: ChartSeries[];
  format(value: number): string;
}

const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** The page's theme, so a chart is drawn again in the other theme's colours. */
function useTheme(): string | undefined {
  const [theme, setTheme] = useState(document.documentElement.dataset.theme);
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(document.documentElement.dataset.theme));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

/**
 * One uPlot line chart, as wide as its box and redrawn on resize and theme change. The figures are
 * also in the table under the charts, for screen readers and for reading exact values.
 */
export function UsageChart({ title, times, series, format }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  useEffect(() => {
    const element = box.current;
    if (element === null || times.length === 0) return;
    const axis = {
      stroke: cssColor('--muted'),
      grid: { stroke: cssColor('--grid') },
      ticks: { stroke: cssColor('--grid') },
    };
    const options: uPlot.Options = {
      width: Math.max(280, element.clientWidth),
      height: 220,
      series: [
        {},
        ...series.map((line, index) => ({
          label: line.label,
          stroke: PALETTE[index % PALETTE.length],
          width: 2,
          points: { show: times.length <= 24 },
          value: (_chart: uPlot, value: number | null) => (value === null ? '–' : format(value)),
        })),
      ],
      axes: [axis, { ...axis, values: (_chart: uPlot, ticks: number[]) => ticks.map(format), size: 84 }],
      scales: {
        x: { time: true },
        // From 0, and 0..1 when every value is 0, rather than uPlot's symmetric guess around it.
        y: { range: (_chart: uPlot, _min: number, max: number) => [0, max > 0 ? max * 1.1 : 1] },
      },
      legend: { live: true },
    };
    const chart = new uPlot(options, [times, ...series.map((line) => line.values)], element);
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(280, element.clientWidth), height: 220 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [times, series, format, theme]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div
        ref={box}
        role="img"
        aria-label={`${title} over time, by group; the figures are in the table below.`}
      />
      {times.length === 0 && <p>No calls in this range.</p>}
    </figure>
  );
}
