import { DynamicModule, Global, Module, Provider, RequestMethod, Type } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import { LoggerModule } from 'nestjs-pino';
import type { Logger as Pino } from 'pino';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig, APP_CONFIG } from './config/config';
import { dataSourceOptions } from './database/database';
import { AuthModule } from './auth/auth.module';
import { ProjectsModule } from './projects/projects.module';
import { JobsModule } from './jobs/jobs.module';
import { DatasetsModule } from './datasets/datasets.module';
import { AnalysesModule } from './analyses/analyses.module';
import { PlotsModule } from './plots/plots.module';
import { PredictionsModule } from './predictions/predictions.module';
import { ImageUploadModule } from './image-upload/image-upload.module';
import { ReportsModule } from './reports/reports.module';
import { HealthController } from './health/health.controller';
import { DatabaseHealth } from './health/database-health';
import { Metrics } from './metrics/metrics.service';
import { GlobalExceptionFilter } from './common/global-exception.filter';
import { EnvelopeInterceptor } from './common/envelope.interceptor';
import { configureEngineProcesses } from './common/engine-process';
import { ApiValidationPipe } from './common/validation';

export interface AppModuleOptions {
  config: AppConfig;
  databaseUrl: string;
  /** Serve HTTP routes (false for `npm run worker`). */
  http: boolean;
  /** The root logger; with HTTP, createApp's request logging and LoggerModule bind each request's lines to it. */
  logger?: Pino;
}

/** Feature modules (routes and job handlers). Each feature module adds itself here. */
const FEATURE_MODULES = [
  AuthModule,
  ProjectsModule,
  DatasetsModule,
  AnalysesModule,
  PlotsModule,
  PredictionsModule,
  ImageUploadModule,
  ReportsModule,
];

/** Every controller of the HTTP application (the OpenAPI document and its route table walk these). */
export function appControllers(): Type[] {
  const declared = FEATURE_MODULES.flatMap((m) => (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, m) as Type[] | undefined) ?? []);
  return [HealthController, ...declared];
}

@Global()
@Module({})
class ConfigModule {
  static of(config: AppConfig): DynamicModule {
    const provider: Provider = { provide: APP_CONFIG, useValue: config };
    return { module: ConfigModule, providers: [provider], exports: [provider] };
  }
}

@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    configureEngineProcesses({ nice: options.config.engineNice, maxMemoryMb: options.config.engineMaxMemoryMb });
    const common = [
      ConfigModule.of(options.config),
      // useExisting: pino-http is installed by createApp ahead of body parsing (so that even a request refused
      // there gets an id and an access line); this module only binds each request's logger for Nest's Logger.
      ...(options.http && options.logger
        ? [
            LoggerModule.forRoot({
              pinoHttp: { logger: options.logger },
              useExisting: true,
              // Every route; the named wildcard is path-to-regexp 8's spelling of the module's default '*'.
              forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
            }),
          ]
        : []),
      // every module registers its own entities (TypeOrmModule.forFeature)
      TypeOrmModule.forRoot({
        ...dataSourceOptions(options.databaseUrl, options.config.dbPoolSize, options.config.dbPoolWaitMs),
        autoLoadEntities: true,
      }),
      ScheduleModule.forRoot(),
      JobsModule,
    ];
    // A worker process (http: false) builds the same modules as an application context, without HTTP.
    return {
      module: AppModule,
      imports: [...common, ...FEATURE_MODULES],
      controllers: [HealthController],
      providers: [
        DatabaseHealth,
        ...(options.config.metrics ? [Metrics] : []),
        { provide: APP_FILTER, useClass: GlobalExceptionFilter },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_PIPE, useClass: ApiValidationPipe },
      ],
    };
  }
}
