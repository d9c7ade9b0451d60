import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { RawResponse } from '../common/raw-response.decorator';
import { ENGINE_VERSION_STRING, SERVICE_VERSION } from '../version';
import { ApiEnvelope } from '../common/api-docs.decorators';
import { DatabaseHealth } from './database-health';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @ApiEnvelope('Service and analysis engine versions', 'Version')
  @Get('version')
  @Access(Permission.Public)
  version(): { version: string; mlEngine: string } {
    return { version: SERVICE_VERSION, mlEngine: ENGINE_VERSION_STRING };
  }

  /** Liveness: the process answers. */
  @ApiEnvelope('Liveness: the process answers', 'Health', { raw: true })
  @Get('health/live')
  @Access(Permission.Public)
  @RawResponse()
  live(): { status: string } {
    return { status: 'ok' };
  }

  /** Readiness: the database answers (a check under 1.5 s old, see DatabaseHealth); HTTP 503 otherwise. */
  @ApiEnvelope('Readiness: the database answers (HTTP 503 otherwise)', 'Health', { raw: true })
  @Get('health/ready')
  @Access(Permission.Public)
  @RawResponse()
  async ready(@Res({ passthrough: true }) res: Response): Promise<{ status: string; database: string }> {
    if (await this.database.ready()) return { status: 'ok', database: 'ok' };
    res.status(503);
    return { status: 'unavailable', database: 'unreachable' };
  }
}
