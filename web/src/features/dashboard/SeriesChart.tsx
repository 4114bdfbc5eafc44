// The daily series as a line chart. ECharts is loaded on demand (dynamic import of its
// tree-shaken core, line chart and canvas renderer) the first time a chart mounts, so
// it lives in its own chunk (./echarts.ts) and never weighs on the inbox's first load.
import { useEffect, useRef } from 'react';
import { useTheme } from 'styled-components';
import type { DashboardDay } from '../../api/dashboard';
import { ChartBox } from './style';

type EChartsModule = typeof import('./echarts')['echarts'];
let loading: Promise<EChartsModule> | null = null;

function loadECharts(): Promise<EChartsModule> {
  loading ??= import('./echarts').then((m) => m.echarts);
  return loading;
}

export interface SeriesLabels {
  title: string;
  opened: string;
  resolved: string;
  messagesIn: string;
  messagesOut: string;
}

export function SeriesChart({ series, labels }: { series: DashboardDay[]; labels: SeriesLabels }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<EChartsModule['init']> | null>(null);
  const theme = useTheme();

  useEffect(() => {
    let cancelled = false;
    const node = el.current;
    if (!node) return;
    void loadECharts().then((echarts) => {
      if (cancelled) return;
      chart.current ??= echarts.init(node, undefined, { renderer: 'canvas' });
      chart.current.setOption(
        {
          animation: false,
          color: [theme.colors.info, theme.colors.success, theme.colors.warning, theme.colors.textMuted],
          textStyle: { color: theme.colors.text },
          tooltip: { trigger: 'axis', renderMode: 'richText' },
          legend: { top: 0, textStyle: { color: theme.colors.text } },
          grid: { left: 40, right: 16, top: 36, bottom: 28 },
          xAxis: { type: 'category', data: series.map((d) => d.date), axisLabel: { color: theme.colors.textMuted } },
          yAxis: { type: 'value', minInterval: 1, axisLabel: { color: theme.colors.textMuted } },
          series: [
            { name: labels.opened, type: 'line', data: series.map((d) => d.opened) },
            { name: labels.resolved, type: 'line', data: series.map((d) => d.resolved) },
            { name: labels.messagesIn, type: 'line', data: series.map((d) => d.messagesIn) },
            { name: labels.messagesOut, type: 'line', data: series.map((d) => d.messagesOut) },
          ],
        },
        true,
      );
    });
    return () => {
      cancelled = true;
    };
  }, [series, labels, theme]);

  useEffect(() => {
    const resize = () => chart.current?.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);

  return <ChartBox ref={el} role="img" aria-label={labels.title} data-testid="dashboard-chart" />;
}
