// The Insights page's second step of ECharts (scripts/generated-texts.ts): line and heat-map
// series, data zoom, visual map and mark lines, registered on the first step's ECharts (one core,
// shared as an ES module).
import * as echarts from 'echarts/core';
import { install as HeatmapChart } from 'echarts/lib/chart/heatmap/install.js';
import { install as LineChart } from 'echarts/lib/chart/line/install.js';
import { install as DataZoomComponent } from 'echarts/lib/component/dataZoom/install.js';
import { install as MarkLineComponent } from 'echarts/lib/component/marker/installMarkLine.js';
import { install as VisualMapComponent } from 'echarts/lib/component/visualMap/install.js';

echarts.use([HeatmapChart, LineChart, DataZoomComponent, MarkLineComponent, VisualMapComponent]);
