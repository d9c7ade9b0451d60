import { Id, PageOf, Type } from '../../common/api-schema';
import type { Static } from '../../common/api-schema';
import { Codes } from '../../common/error-codes';
import { ValidatePositiveInt } from '../../common/validation';

/** Report links last 7 days unless asked otherwise, 90 at most. */
export const REPORT_LINK_DEFAULT_DAYS = 7;
export const REPORT_LINK_MAX_DAYS = 90;

export class CreateReportLinkDto {
  @ValidatePositiveInt('validForDays', {
    optional: true,
    max: REPORT_LINK_MAX_DAYS,
    default: REPORT_LINK_DEFAULT_DAYS,
    code: Codes.BadLinkValidity,
    description: `days the link opens the report (default ${REPORT_LINK_DEFAULT_DAYS}, at most ${REPORT_LINK_MAX_DAYS})`,
  })
  validForDays?: number;
}

/** A new report link: its URL is shown this once (only a hash of its token is kept). */
export const ReportLink = Type.Object(
  {
    linkId: Id('the link, to withdraw it'),
    analysisId: Id('echoed'),
    url: Type.String({
      description: 'opens the report in a browser without a bearer header; shown this once (only a hash of its token is kept)',
    }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ReportLink' },
);
export type ReportLink = Static<typeof ReportLink>;

/** A report link as lists show it: who made it and until when it opens; never its URL. */
export const ReportLinkInfo = Type.Object(
  {
    linkId: Id('identifier'),
    analysisId: Id('the analysis whose report it opens'),
    username: Type.String({ description: 'who made it' }),
    created: Type.String({ format: 'date-time' }),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ReportLinkInfo' },
);
export type ReportLinkInfo = Static<typeof ReportLinkInfo>;

export const ReportLinkPage = PageOf('ReportLinkPage', ReportLinkInfo, { analysisId: Id('echoed') });
export type ReportLinkPage = Static<typeof ReportLinkPage>;
