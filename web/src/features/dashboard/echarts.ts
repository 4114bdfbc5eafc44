// The part of ECharts the dashboard uses: core, line chart, grid, legend, tooltip and
// the canvas renderer. Named imports let the bundler drop the rest of the library;
// SeriesChart imports this module dynamically, so all of it is one on-demand chunk.
import * as echarts from 'echarts/core';
import { LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([LineChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

export { echarts };
