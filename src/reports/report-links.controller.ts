import { Body, Controller, Get, Header, HttpCode, Param, Post, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Access } from '../auth/access.decorator';
import { Auth, AuthContext } from '../auth/auth-context';
import { Permission } from '../auth/permission';
import { ApiEnvelope, ApiErrors, ApiHtml, bodyErrors } from '../common/api-docs.decorators';
import { API_PREFIX } from '../common/api-prefix';
import { Codes } from '../common/error-codes';
import { ParseCountPipe, ParseIdPipe, ParseOffsetPipe } from '../common/pipes';
import { CreateReportLinkDto, ReportLink, ReportLinkInfo, ReportLinkPage } from './dto/report-link.dto';
import { REPORT_CSP_HEADER } from './render/styles';
import { ReportLinksService, SHARED_REPORT_PATH } from './report-links.service';
import { originOf } from './reports.controller';

/** What every refused link shows, whatever the reason: nothing of the analysis, nor why. */
const REFUSED_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Report link not valid</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 4em auto; padding: 0 1em">
<h1>This link does not open a report</h1>
<p>It may have expired or been withdrawn, or the analysis is no longer shared. Ask the person who sent it for a new link.</p>
</body></html>
`;

/**
 * Report links (docs/api-guide.md, Analyses: report links): a URL that opens an analysis's report in a
 * browser without a bearer header. Made by anyone who may read the analysis; listed (the owner sees all, others
 * their own) and withdrawn by the project's owner.
 */
@ApiTags('reports')
@Controller()
export class ReportLinksController {
  constructor(private readonly links: ReportLinksService) {}

  @ApiEnvelope(
    'Make a link that opens the report of a finished analysis in a browser, without a bearer header (its URL is shown this once)',
    ReportLink,
  )
  @ApiErrors(...bodyErrors(CreateReportLinkDto), Codes.AnalysisUnfinished)
  @Post('analysis/:analysisId/reportLink')
  @HttpCode(200)
  @Access(Permission.ProjectRead, 'analysisId')
  create(
    @Auth() auth: AuthContext,
    @Param('analysisId', ParseIdPipe) analysisId: string,
    @Body() dto: CreateReportLinkDto,
    @Req() req: Request,
  ): Promise<ReportLink> {
    return this.links.create(analysisId, auth.userId, dto.validForDays ?? undefined, `${originOf(req)}/${API_PREFIX}`);
  }

  @ApiEnvelope("List an analysis's report links (the project's owner sees every one, others their own)", ReportLinkPage)
  @Get('analysis/:analysisId/reportLinks/:offset/:count')
  @Access(Permission.ProjectRead, 'analysisId')
  async list(
    @Auth() auth: AuthContext,
    @Param('analysisId', ParseIdPipe) analysisId: string,
    @Param('offset', ParseOffsetPipe) offset: number,
    @Param('count', ParseCountPipe) count: number,
  ): Promise<ReportLinkPage> {
    return { analysisId, ...(await this.links.list(analysisId, auth.userId, offset, count)) };
  }

  @ApiEnvelope('Withdraw a report link: it opens nothing from then on (project owner)', ReportLinkInfo)
  @ApiErrors(Codes.ReportLinkNotFound)
  @Post('analysis/:analysisId/reportLink/:linkId/delete')
  @HttpCode(200)
  @Access(Permission.ProjectOwned, 'analysisId')
  delete(@Param('analysisId', ParseIdPipe) analysisId: string, @Param('linkId', ParseIdPipe) linkId: string): Promise<ReportLinkInfo> {
    return this.links.delete(analysisId, linkId);
  }

  @ApiHtml(
    "The report a report link opens (no Authorization header: the token in the path is the permission); any link that opens nothing (unknown, altered, expired, withdrawn, its analysis or its maker's access gone) answers HTTP 404 with the same page",
  )
  @Get(`${SHARED_REPORT_PATH}/:token`)
  @Access(Permission.Public)
  @Header('Content-Security-Policy', REPORT_CSP_HEADER)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'private, no-store')
  // the token is in the URL: no Referer carries it anywhere, and no search engine keeps it
  @Header('Referrer-Policy', 'no-referrer')
  @Header('X-Robots-Tag', 'noindex, nofollow')
  async open(@Param('token') token: string, @Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    const page = await this.links.open(token, originOf(req));
    if (page === undefined) res.status(404);
    return new StreamableFile(page ?? Buffer.from(REFUSED_PAGE, 'utf8'), { type: 'text/html; charset=utf-8', disposition: 'inline' });
  }
}
