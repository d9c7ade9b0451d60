import { Init1763800000000 } from './1763800000000-init';
import { Datasets1763800100000 } from './1763800100000-datasets';
import { Analyses1763800200000 } from './1763800200000-analyses';
import { Predictions1763800300000 } from './1763800300000-predictions';
import { ImageUpload1763800500000 } from './1763800500000-image-upload';
import { JobSubjects1763800600000 } from './1763800600000-job-subjects';
import { FileUploads1763800650000 } from './1763800650000-file-uploads';
import { UserDisabled1763800700000 } from './1763800700000-user-disabled';
import { LoginFailures1763800800000 } from './1763800800000-login-failures';
import { UploadSlots1763800900000 } from './1763800900000-upload-slots';
import { JobUsers1763801000000 } from './1763801000000-job-users';
import { JobClaims1763801100000 } from './1763801100000-job-claims';
import { TaskUsers1763801200000 } from './1763801200000-task-users';
import { KeptWork1763801300000 } from './1763801300000-kept-work';
import { TokenLastUsed1763801450000 } from './1763801450000-token-last-used';
import { ResultDepth1763801500000 } from './1763801500000-result-depth';
import { ImageAddQuota1763801600000 } from './1763801600000-image-add-quota';
import { ImageAddReserve1763801700000 } from './1763801700000-image-add-reserve';
import { ColumnPieces1763801800000 } from './1763801800000-column-pieces';
import { PredictionExplain1763801900000 } from './1763801900000-prediction-explain';
import { OutOfFoldTexts1763802000000 } from './1763802000000-out-of-fold-texts';
import { ReportLinks1763802100000 } from './1763802100000-report-links';
import { AnalysisEstimate1763802200000 } from './1763802200000-analysis-estimate';

/** Every migration, oldest first. Add new ones at the end (timestamped class names, raw SQL). */
export const MIGRATIONS = [
  Init1763800000000,
  Datasets1763800100000,
  Analyses1763800200000,
  Predictions1763800300000,
  ImageUpload1763800500000,
  JobSubjects1763800600000,
  FileUploads1763800650000,
  UserDisabled1763800700000,
  LoginFailures1763800800000,
  UploadSlots1763800900000,
  JobUsers1763801000000,
  JobClaims1763801100000,
  TaskUsers1763801200000,
  KeptWork1763801300000,
  TokenLastUsed1763801450000,
  ResultDepth1763801500000,
  ImageAddQuota1763801600000,
  ImageAddReserve1763801700000,
  ColumnPieces1763801800000,
  PredictionExplain1763801900000,
  OutOfFoldTexts1763802000000,
  ReportLinks1763802100000,
  AnalysisEstimate1763802200000,
];
