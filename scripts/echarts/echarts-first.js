// The Insights page's first step of ECharts (scripts/generated-texts.ts): what its bar charts need.
// Each part from its own install module: through the `echarts/charts` index every chart would land
// in the part both steps share.
import * as echarts from 'echarts/core';
import { install as BarChart } from 'echarts/lib/chart/bar/install.js';
import { install as AriaComponent } from 'echarts/lib/component/aria/install.js';
import { install as GridComponent } from 'echarts/lib/component/grid/install.js';
import { install as LegendComponent } from 'echarts/lib/component/legend/install.js';
import { install as TooltipComponent } from 'echarts/lib/component/tooltip/install.js';
import { install as CanvasRenderer } from 'echarts/lib/renderer/installCanvasRenderer.js';

echarts.use([BarChart, AriaComponent, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);
globalThis.echarts = echarts;
