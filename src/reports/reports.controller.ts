import { Controller, Get, Header, Param, Req, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Access } from '../auth/access.decorator';
import { Permission } from '../auth/permission';
import { Codes } from '../common/error-codes';
import { ParseIdPipe } from '../common/pipes';
import { ApiErrors, ApiHtml } from '../common/api-docs.decorators';
import { REPORT_CSP_HEADER } from './render/styles';
import { ReportsService } from './reports.service';

/** Scheme, host and port the request came to, when they look like one (the report's examples call it); else a placeholder. */
export function originOf(req: Request): string {
  const host = req.get('host') ?? '';
  return /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(host) ? `${req.protocol}://${host}` : 'http://localhost:8080';
}

/** The report of an analysis: one HTML page with the result drawn (read permission, as the result). */
@ApiTags('reports')
@Controller('analysis/:analysisId')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @ApiHtml(
    'The report of a finished analysis: one self-contained HTML page (its models, estimates with intervals, signatures, every plot drawn, the leaderboard, how to predict)',
  )
  @ApiErrors(Codes.AnalysisUnfinished)
  @Get('report')
  @Access(Permission.ProjectRead, 'analysisId', { notFound: Codes.AnalysisResultUnknown })
  @Header('Content-Security-Policy', REPORT_CSP_HEADER)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'private, no-store')
  async report(@Param('analysisId', ParseIdPipe) analysisId: string, @Req() req: Request): Promise<StreamableFile> {
    return new StreamableFile(await this.reports.report(analysisId, originOf(req)), {
      type: 'text/html; charset=utf-8',
      disposition: `inline; filename="analysis-${analysisId}-report.html"`,
    });
  }
}
