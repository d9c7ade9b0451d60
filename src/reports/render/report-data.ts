import type { LeaderboardRow } from '../../analyses/result-details.service';
import type { ModelCard } from '../../engine';
import type { AnalysisEstimate } from '../../analyses/dto/analysis.dto';
import type { AnalysisParameters, ModelPlots, ModelReport, SearchFacts } from '../../engine/types';

/** One model of the result, with what the report draws of it. */
export interface ReportModel {
  /** `best`, `interpretable` */
  key: string;
  report: ModelReport;
  /** its stored plots, by name */
  plots: ModelPlots;
  /** the model card of its reference signature (none for a result without its pipelines) */
  card?: ModelCard<AnalysisParameters & { datasetId: string; name: string }>;
}

/** Everything a report shows, read from the stored result of a finished analysis (nothing is computed again). */
export interface ReportData {
  analysisId: string;
  projectId: string;
  parameters: AnalysisParameters & { datasetId: string; name: string };
  dataset?: { name: string; sampleCount: number; featureCount: number };
  mlEngine: string;
  serviceVersion: string;
  startTime: string;
  executionTimeInSeconds: number;
  /** the running time and memory predicted when the analysis was created (absent before estimates) */
  estimate?: AnalysisEstimate;
  /** how much of the grid the search tried, and whether its time limit stopped it (absent in older results) */
  search?: SearchFacts;
  generatedAt: Date;
  /** best first, then interpretable, then any other key in the result's order */
  models: ReportModel[];
  /**
   * The top of the leaderboard, and the rows of the result's models ranked below it (`chosen`); undefined for
   * results stored before leaderboards were kept.
   */
  leaderboard?: {
    totalCount: number;
    rows: LeaderboardRow[];
    chosen: LeaderboardRow[];
    /** the first rows tied with the leader in the winner rule's simplicity order (none in results before it said so) */
    tied?: LeaderboardRow[];
    tiedCount?: number;
  };
  /** where the service answers (scheme, host and port), for the examples of the prediction section */
  origin: string;
}
