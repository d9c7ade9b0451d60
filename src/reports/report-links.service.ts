import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AnalysesService } from '../analyses/analyses.service';
import { hashToken, newToken } from '../auth/crypto';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { Page } from '../common/pipes';
import { paginateSql } from '../database/paginate';
import { REPORT_LINK_DEFAULT_DAYS, ReportLink, ReportLinkInfo } from './dto/report-link.dto';
import * as queries from './report-links.queries';
import { ReportsService } from './reports.service';

/** A link's token: 256 random bits in base64url (crypto.ts's newToken), 43 characters. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** Where a link opens (under the API prefix): `sharedReport/<token>`. */
export const SHARED_REPORT_PATH = 'sharedReport';

function info(r: queries.LinkRow): ReportLinkInfo {
  return {
    linkId: String(r.id),
    analysisId: String(r.analysis_id),
    username: r.username,
    created: r.created_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
  };
}

/**
 * Report links: URLs that open an analysis's report in a browser without a bearer header, for colleagues without an
 * account. The token is in the URL and nowhere else: the table keeps its SHA-256. A link opens only while the user
 * who made it may still read the analysis (see openableAnalysis); the project's owner may withdraw any link.
 */
@Injectable()
export class ReportLinksService {
  constructor(
    private readonly db: DataSource,
    private readonly analyses: AnalysesService,
    private readonly reports: ReportsService,
  ) {}

  /** A new link to the report of a finished analysis; `base` is the scheme, host and API prefix the request came to. */
  async create(analysisId: string, userId: string, days = REPORT_LINK_DEFAULT_DAYS, base: string): Promise<ReportLink> {
    const { state } = await this.analyses.get(analysisId);
    if (state !== 'finished') throw new ApiError(Codes.AnalysisUnfinished, `the analysis is ${state}: it has no report to link to`);
    const token = newToken();
    const row = await queries.insertLink(this.db, analysisId, userId, hashToken(token), days);
    return { linkId: String(row.id), analysisId, url: `${base}/${SHARED_REPORT_PATH}/${token}`, expiresAt: row.expires_at.toISOString() };
  }

  /** The links of an analysis: every one for the project's owner, the caller's own for anyone else. */
  list(analysisId: string, userId: string, offset: number, count: number): Promise<Page<ReportLinkInfo>> {
    const sql = {
      table: queries.LINKS_TABLE,
      columns: 'id, analysis_id, username, created_at, expires_at',
      where: `analysis_id = $1 AND (user_id = $2 OR ${queries.OWNS_ANALYSIS})`,
      params: [analysisId, userId],
    };
    return paginateSql(this.db, sql, offset, count, info);
  }

  /** Withdraws a link: it opens nothing from then on. */
  async delete(analysisId: string, linkId: string): Promise<ReportLinkInfo> {
    const row = await queries.deleteLink(this.db, analysisId, linkId);
    if (!row) throw new ApiError(Codes.ReportLinkNotFound, `analysis ${analysisId} has no report link ${linkId}`);
    return info(row);
  }

  /** The report a link's token opens, or undefined for any link that does not (unknown, altered, expired, withdrawn). */
  async open(token: string, origin: string): Promise<Buffer | undefined> {
    if (!TOKEN_FORMAT.test(token)) return undefined;
    const analysisId = await queries.openableAnalysis(this.db, hashToken(token));
    if (!analysisId) return undefined;
    try {
      return await this.reports.report(analysisId, origin);
    } catch (e) {
      // deleted or restarted between the two reads: no report to show
      if (e instanceof ApiError) return undefined;
      throw e;
    }
  }
}
