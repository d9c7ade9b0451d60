/** What every renderer of a plot kind (plot-charts.ts, decision-charts.ts) is given and returns. */
import type { ModelPlots, PlotName } from '../../engine/plots';
import type { ChartParts } from './chart-frame';
import type { Content } from './html';

/** What a renderer may need beyond the plot's value. */
export interface PlotRenderContext {
  /** the metric the analysis ranks by (Feature Importance is a drop of it) */
  primaryMetric: string;
  /** the outcome's name (regression: the value predicted; survival: the time feature) */
  outcome: string;
  /** binary classification: the class whose probability is shown */
  positiveClass?: string;
  /** classification: the samples of each class (many-classes.ts shows the largest when there are many) */
  classSizes?: Record<string, number>;
}

export interface RenderedPlot {
  parts: ChartParts;
  /** what the chart shows and how to read it, in words */
  caption: Content;
  /** more of the plot's numbers, shown under the chart */
  extra?: Content;
}

export type Renderer<K extends PlotName> = (value: NonNullable<ModelPlots[K]>, ctx: PlotRenderContext) => RenderedPlot;

/** Rows of a long curve's table: at most this many per curve (every value stays available through getPlot). */
export const MAX_TABLE_ROWS = 120;
/** Points of a curve drawn: more are not told apart on a 500-unit-wide chart. */
export const MAX_DRAWN_POINTS = 400;
