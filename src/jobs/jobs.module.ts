import { Global, Module } from '@nestjs/common';
import { JobRunner } from './job-runner';
import { JobsService } from './jobs.service';

/** The job table's queue and runner. Feature modules register their handlers with JobsService in onModuleInit. */
@Global()
@Module({ providers: [JobsService, JobRunner], exports: [JobsService, JobRunner] })
export class JobsModule {}
