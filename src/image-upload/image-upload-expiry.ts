import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { APP_CONFIG, AppConfig } from '../config/config';
import { TASK_SUBJECT } from '../datasets/task.subject';
import { JobsService } from '../jobs/jobs.service';
import { dropUploadedImages, expiredUploads } from './image-upload.queries';
import { IMAGE_TASK_KIND } from './image-upload.service';

/** How often a worker process looks for expired uploads. */
const SWEEP_MS = 60_000;

/** The error of an upload that expired: the task's error, and the answer to an add or commit after it. */
export function expiredError(hours: number): ApiError {
  return new ApiError(
    Codes.ImageUploadExpired,
    `the upload was not committed within ${hours} hours (IMAGE_UPLOAD_EXPIRY_HOURS) of its init or its last add: it failed and its images were deleted; start a new upload`,
  );
}

/**
 * Image uploads that are never committed: a pending image task whose init and last add are both older than
 * IMAGE_UPLOAD_EXPIRY_HOURS fails with conflict-130-5-1, and its init file and images are deleted (its status
 * stays, as for any failed task). Processes that run workers sweep every minute; `sweep` is the tick, and
 * tests call it directly.
 */
@Injectable()
export class ImageUploadExpiry implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ImageUpload');
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: DataSource,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runWorkers) return;
    this.timer = setInterval(() => {
      this.sweep().catch((e: Error) => this.logger.error(`expired image uploads could not be swept: ${e.message}`));
    }, SWEEP_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Fails every expired upload; returns their task ids. */
  async sweep(): Promise<string[]> {
    const hours = this.config.imageUploadExpiryHours;
    const candidates = await expiredUploads(this.db, IMAGE_TASK_KIND, hours);
    const failed: string[] = [];
    for (const id of candidates) {
      const done = await this.db.transaction(async (tx) => {
        // an add or a commit holding the task now: it is in use, look again at the next sweep
        if (!(await expiredUploads(tx, IMAGE_TASK_KIND, hours, id)).length) return false;
        const error = expiredError(hours);
        await this.jobs.states.fail(TASK_SUBJECT, id, { code: error.code, message: error.message }, tx);
        await dropUploadedImages(tx, id);
        return true;
      });
      if (done) failed.push(id);
    }
    if (failed.length) this.logger.log(`image upload task(s) ${failed.join(', ')} expired (IMAGE_UPLOAD_EXPIRY_HOURS=${hours})`);
    return failed;
  }
}
