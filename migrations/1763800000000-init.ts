import { MigrationInterface, QueryRunner } from 'typeorm';

/** Users, tokens, projects and sharing; datasets, tasks, analyses, predictions and jobs in their first form. */
export class Init1763800000000 implements MigrationInterface {
  name = 'Init1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id bigserial PRIMARY KEY,
        username text NOT NULL UNIQUE,
        email text UNIQUE,
        password_hash text NOT NULL,
        core_quota integer CHECK (core_quota IS NULL OR core_quota > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE tokens (
        id bigserial PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tokens_user_idx ON tokens(user_id);
      CREATE TABLE projects (
        id bigserial PRIMARY KEY,
        owner_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX projects_owner_idx ON projects(owner_id, created_at, id);
      CREATE TABLE project_shares (
        project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        can_read boolean NOT NULL DEFAULT true,
        can_write boolean NOT NULL DEFAULT false,
        can_execute boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project_id, user_id)
      );
      CREATE INDEX project_shares_user_idx ON project_shares(user_id, created_at);
      CREATE TABLE datasets (
        id bigserial PRIMARY KEY,
        project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        sample_count integer NOT NULL,
        feature_count integer NOT NULL,
        size_in_bytes bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (project_id, name)
      );
      CREATE TABLE tasks (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','running','finished','failed')),
        dataset_id bigint REFERENCES datasets(id) ON DELETE SET NULL,
        error jsonb,
        payload jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX tasks_project_idx ON tasks(project_id);
      CREATE TABLE analyses (
        id bigserial PRIMARY KEY,
        project_id bigint NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
        dataset_id bigint NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        parameters jsonb NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','running','finished','failed')),
        core_count integer NOT NULL,
        seed bigint NOT NULL,
        progress double precision,
        start_time timestamptz,
        end_time timestamptz,
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX analyses_project_idx ON analyses(project_id, created_at, id);
      CREATE INDEX analyses_dataset_idx ON analyses(dataset_id);
      CREATE INDEX analyses_user_state_idx ON analyses(user_id, state);
      CREATE TABLE predictions (
        id bigserial PRIMARY KEY,
        analysis_id bigint NOT NULL REFERENCES analyses(id) ON DELETE CASCADE,
        dataset_id bigint NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
        user_id bigint NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        model_key text NOT NULL,
        signature_index integer NOT NULL DEFAULT 0,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','running','finished','failed')),
        error jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX predictions_analysis_idx ON predictions(analysis_id, created_at, id);
      CREATE INDEX predictions_dataset_idx ON predictions(dataset_id);
      CREATE TABLE jobs (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        -- the project the job works for, so deleting the project deletes its jobs (null: not project work)
        project_id bigint REFERENCES projects(id) ON DELETE CASCADE,
        payload jsonb NOT NULL DEFAULT '{}',
        state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued','running','done','failed','cancelled')),
        -- cores the job occupies while it runs (analyses: their coreCount)
        cost integer NOT NULL DEFAULT 1 CHECK (cost > 0),
        attempts integer NOT NULL DEFAULT 0,
        max_attempts integer NOT NULL DEFAULT 3,
        lease_owner text,
        lease_expires_at timestamptz,
        run_after timestamptz NOT NULL DEFAULT now(),
        error text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX jobs_claim_idx ON jobs(run_after, id) WHERE state = 'queued';
      CREATE INDEX jobs_lease_idx ON jobs(lease_expires_at) WHERE state = 'running';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE jobs; DROP TABLE predictions; DROP TABLE analyses; DROP TABLE tasks;
      DROP TABLE datasets; DROP TABLE project_shares; DROP TABLE projects; DROP TABLE tokens; DROP TABLE users;
    `);
  }
}
