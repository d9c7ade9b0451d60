import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each job names its subject (task, analysis or prediction) with a foreign key that deletes the job with
 * the subject, however the subject goes (its own delete, or a dataset's or project's cascade): no stale
 * job rows, and the runner sees a deleted subject's job vanish and stops it. Job rows whose subject is
 * already gone are dropped here.
 *
 * A task keeps the id of the dataset it built after that dataset is deleted (api-v1 rule 5: a finished
 * task reports its datasetId), so tasks.dataset_id is no longer a foreign key.
 */
export class JobSubjects1763800600000 implements MigrationInterface {
  name = 'JobSubjects1763800600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE jobs
        ADD COLUMN task_id bigint REFERENCES tasks(id) ON DELETE CASCADE,
        ADD COLUMN analysis_id bigint REFERENCES analyses(id) ON DELETE CASCADE,
        ADD COLUMN prediction_id bigint REFERENCES predictions(id) ON DELETE CASCADE;
      UPDATE jobs j SET task_id = t.id FROM tasks t
        WHERE j.kind IN ('createDataset', 'imageDataset') AND t.id::text = j.payload->>'taskId';
      UPDATE jobs j SET analysis_id = a.id FROM analyses a
        WHERE j.kind = 'analysis' AND a.id::text = j.payload->>'analysisId';
      UPDATE jobs j SET prediction_id = p.id FROM predictions p
        WHERE j.kind = 'prediction' AND p.id::text = j.payload->>'predictionId';
      DELETE FROM jobs WHERE num_nonnulls(task_id, analysis_id, prediction_id) = 0;
      ALTER TABLE jobs ADD CONSTRAINT jobs_one_subject CHECK (num_nonnulls(task_id, analysis_id, prediction_id) = 1);
      CREATE INDEX jobs_task_idx ON jobs(task_id) WHERE task_id IS NOT NULL;
      CREATE INDEX jobs_analysis_idx ON jobs(analysis_id) WHERE analysis_id IS NOT NULL;
      CREATE INDEX jobs_prediction_idx ON jobs(prediction_id) WHERE prediction_id IS NOT NULL;
      ALTER TABLE tasks DROP CONSTRAINT tasks_dataset_id_fkey;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE tasks SET dataset_id = NULL WHERE dataset_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM datasets d WHERE d.id = tasks.dataset_id);
      ALTER TABLE tasks ADD CONSTRAINT tasks_dataset_id_fkey FOREIGN KEY (dataset_id) REFERENCES datasets(id) ON DELETE SET NULL;
      ALTER TABLE jobs DROP CONSTRAINT jobs_one_subject;
      ALTER TABLE jobs DROP COLUMN task_id, DROP COLUMN analysis_id, DROP COLUMN prediction_id;
    `);
  }
}
