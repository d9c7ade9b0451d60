import { Global, Module } from '@nestjs/common';
import { USER_DELETION_STEP } from '../common/user-deletion';
import { JobRunner } from './job-runner';
import { jobsFollowTheirSubjects } from './jobs.queries';
import { JobsService } from './jobs.service';

/**
 * The job table's queue and runner. Feature modules register their handlers with JobsService in onModuleInit. The
 * jobs table is written here only: deleting a user runs this module's step (USER_DELETION_STEP) for their jobs.
 */
const USER_DELETION = { provide: USER_DELETION_STEP, useValue: jobsFollowTheirSubjects };

@Global()
@Module({ providers: [JobsService, JobRunner, USER_DELETION], exports: [JobsService, JobRunner, USER_DELETION] })
export class JobsModule {}
