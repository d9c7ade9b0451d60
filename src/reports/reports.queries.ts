import type { DataSource } from 'typeorm';
import { prepared } from '../database/sql';
import type { StoredParameters } from '../analyses/analysis-parameters';
import type { AnalysisEstimate } from '../analyses/dto/analysis.dto';
import type { SearchFacts } from '../engine/types';

/** The reports module's SQL: what a report shows beside its models, in one statement (a delete meanwhile is seen whole). */

/** An analysis with its result's presence, its engine and model keys, and its dataset's summary (null when gone). */
export interface ReportRow {
  project_id: string;
  parameters: StoredParameters;
  state: string;
  start_time: Date | null;
  end_time: Date | null;
  has_result: boolean;
  ml_engine: string | null;
  keys: string[] | null;
  dataset_name: string | null;
  sample_count: number | null;
  feature_count: number | null;
  /** made when the analysis was created (null before estimates) */
  estimate: AnalysisEstimate | null;
  /** how the search went against its time limit (null in results stored before) */
  search: SearchFacts | null;
}

/** `state`: the SQL of an analysis's shown state (jobs.states.shownState). */
export async function reportRow(db: DataSource, state: string, analysisId: string): Promise<ReportRow | undefined> {
  const [row] = await prepared<ReportRow>(
    db,
    `SELECT analyses.project_id, analyses.parameters, ${state}, analyses.start_time, analyses.end_time,
            r.analysis_id IS NOT NULL AS has_result, r.ml_engine,
            CASE WHEN r.analysis_id IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_object_keys(r.models)) END AS keys,
            d.name AS dataset_name, d.sample_count, d.feature_count, analyses.estimate, r.stats -> 'search' AS search
       FROM analyses LEFT JOIN analysis_results r ON r.analysis_id = analyses.id LEFT JOIN datasets d ON d.id = analyses.dataset_id
      WHERE analyses.id = $1`,
    [analysisId],
  );
  return row;
}
