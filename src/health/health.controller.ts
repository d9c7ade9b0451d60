import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { RawResponse } from '../common/raw-response.decorator';
import { ENGINE_VERSION_STRING, SERVICE_VERSION } from '../version';
import { ApiEnvelope } from '../common/api-docs.decorators';
import { embeddedServerDownMs } from '../database/embedded-postgres';
import { DatabaseHealth } from './database-health';
import { Health, Version } from './dto/health.dto';

/** How long the embedded PostgreSQL may stay down, its restarts failing, before liveness fails. */
export const EMBEDDED_DOWN_LIMIT_MS = 60_000;

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @ApiEnvelope('Service and analysis engine versions', Version)
  @Get('version')
  @Access(Permission.Public)
  version(): Version {
    return { version: SERVICE_VERSION, mlEngine: ENGINE_VERSION_STRING };
  }

  /**
   * Liveness: the process answers, and the embedded PostgreSQL it owns (if any) has not been down for longer than
   * EMBEDDED_DOWN_LIMIT_MS: the service restarts that server when it dies, and a server it could not start again for
   * that long is a fault a restart of the process may cure (HTTP 503, so an orchestrator restarts it).
   */
  @ApiEnvelope('Liveness: the process answers (HTTP 503 when its embedded database could not be restarted for a minute)', Health, {
    raw: true,
  })
  @Get('health/live')
  @Access(Permission.Public)
  @RawResponse()
  live(@Res({ passthrough: true }) res: Response): Health {
    if (embeddedServerDownMs() <= EMBEDDED_DOWN_LIMIT_MS) return { status: 'ok' };
    res.status(503);
    return { status: 'unavailable', database: 'unreachable' };
  }

  /** Readiness: the database answers (a check under 1.5 s old, see DatabaseHealth); HTTP 503 otherwise. */
  @ApiEnvelope('Readiness: the database answers (HTTP 503 otherwise)', Health, { raw: true })
  @Get('health/ready')
  @Access(Permission.Public)
  @RawResponse()
  async ready(@Res({ passthrough: true }) res: Response): Promise<Health> {
    if (await this.database.ready()) return { status: 'ok', database: 'ok' };
    res.status(503);
    return { status: 'unavailable', database: 'unreachable' };
  }
}
