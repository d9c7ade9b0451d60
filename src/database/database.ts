import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS } from '../../migrations';
import { AppConfig } from '../config/config';
import { EmbeddedOptions, EmbeddedServer, ensureDatabase, startEmbeddedPostgres } from './embedded-postgres';
import { keepConnectionErrors } from './pg-pool';

export const EMBEDDED_DATABASE_NAME = 'signet';
const MIGRATION_LOCK = 727_001;

/**
 * `poolWaitMs` bounds the wait for a free pooled connection: past it the query fails with pg's
 * "timeout exceeded when trying to connect", which the API answers with unavailable-1-0-1 (service busy).
 * `entities`: the TypeORM entities a program outside the application uses (the CLI: users and tokens); in the
 * application each module registers its own (TypeOrmModule.forFeature in its module, app.module's autoLoadEntities).
 */
export function dataSourceOptions(
  url: string,
  poolSize = 20,
  poolWaitMs = 0,
  entities: DataSourceOptions['entities'] = [],
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // every connection listens for its own errors from the start (pg-pool.ts): TypeORM's listener comes later
    extra: { max: poolSize, connectionTimeoutMillis: poolWaitMs, onConnect: keepConnectionErrors },
  };
}

/** Runs pending migrations under an advisory lock, so processes starting together do not race. */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = new DataSource(dataSourceOptions(url, 2));
  await ds.initialize();
  try {
    const runner = ds.createQueryRunner();
    await runner.connect();
    try {
      await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      const done = await ds.runMigrations({ transaction: 'each' });
      return done.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      await runner.release();
    }
  } finally {
    await ds.destroy();
  }
}

export interface ResolvedDatabase {
  url: string;
  embedded?: EmbeddedServer;
}

/** DATABASE_URL when set, else the embedded server in DATA_DIR (started when not already running). */
export async function resolveDatabase(
  config: AppConfig,
  log: (m: string) => void,
  options: EmbeddedOptions = {},
): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl };
  const embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log, options);
  try {
    await ensureDatabase(embedded.url('postgres'), EMBEDDED_DATABASE_NAME);
  } catch (e) {
    await embedded.stop();
    throw e;
  }
  return { url: embedded.url(EMBEDDED_DATABASE_NAME), embedded };
}

/** Which database `db` is, for people: the URL without its password, and for the embedded server its directory. */
export function describeDatabase(config: AppConfig, db: ResolvedDatabase): string {
  const url = new URL(db.url);
  url.password = '';
  const where = `${url.protocol}//${url.username ? url.username + '@' : ''}${url.host}${url.pathname}`;
  if (!db.embedded) return `${where} (DATABASE_URL)`;
  const how = db.embedded.startedHere ? 'started for this command' : 'already running';
  return `${where} (embedded PostgreSQL of DATA_DIR ${config.dataDir}, ${how})`;
}
