import { Injectable } from '@nestjs/common';
import { AnalysesService } from '../analyses/analyses.service';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { orderedPlotNames as names } from '../engine/plots';

@Injectable()
export class PlotsService {
  constructor(private readonly analyses: AnalysesService) {}

  async available(analysisId: string, modelKey: string) {
    const m = await this.analyses.plotsOf(analysisId, modelKey);
    return { analysisId, modelKey: m.modelKey, plots: names(m.plots) };
  }

  async plot(analysisId: string, modelKey: string, plotKey: string) {
    const m = await this.analyses.plotsOf(analysisId, modelKey);
    if (!names(m.plots).includes(plotKey)) {
      throw new ApiError(
        Codes.PlotKeyNotFound,
        `plotKey "${plotKey.slice(0, 60)}" is not available; available: ${names(m.plots).join(', ')}`,
      );
    }
    return { analysisId, modelKey: m.modelKey, plot: { [plotKey]: (m.plots as Record<string, unknown>)[plotKey] } };
  }

  async all(analysisId: string, modelKey: string) {
    const m = await this.analyses.plotsOf(analysisId, modelKey);
    return {
      analysisId,
      modelKey: m.modelKey,
      plots: names(m.plots).map((k) => ({ [k]: (m.plots as Record<string, unknown>)[k] })),
    };
  }
}
