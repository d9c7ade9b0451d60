import type { DataSource } from 'typeorm';
import { rows } from '../database/sql';

/** The report links' SQL (table report_links, migrations/1763802000000-report-links.ts). */

export interface LinkRow {
  id: string;
  analysis_id: string;
  username: string;
  created_at: Date;
  expires_at: Date;
}

/** The links of an analysis as a derived table: those of every user for the project's owner, else the caller's own. */
export const LINKS_TABLE = `(SELECT l.id, l.analysis_id, l.user_id, u.username, l.created_at, l.expires_at
     FROM report_links l JOIN users u ON u.id = l.user_id) x`;

/** SQL condition: the user $2 owns the project of the analysis $1. */
export const OWNS_ANALYSIS = `EXISTS (SELECT 1 FROM analyses oa JOIN projects op ON op.id = oa.project_id WHERE oa.id = $1 AND op.owner_id = $2)`;

export async function insertLink(db: DataSource, analysisId: string, userId: string, tokenHash: Buffer, days: number): Promise<LinkRow> {
  const [row] = await rows<LinkRow>(
    db,
    `INSERT INTO report_links (analysis_id, user_id, token_hash, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(days => $4))
     RETURNING id, analysis_id, created_at, expires_at, (SELECT username FROM users WHERE id = $2) AS username`,
    [analysisId, userId, tokenHash, days],
  );
  return row;
}

/** Deletes a link of the analysis; undefined when it has none of that id. */
export async function deleteLink(db: DataSource, analysisId: string, linkId: string): Promise<LinkRow | undefined> {
  const [row] = await rows<LinkRow>(
    db,
    `DELETE FROM report_links l USING users u
      WHERE l.id = $2 AND l.analysis_id = $1 AND u.id = l.user_id
      RETURNING l.id, l.analysis_id, l.created_at, l.expires_at, u.username`,
    [analysisId, linkId],
  );
  return row;
}

/**
 * The analysis a link's token opens, when the link still may: unexpired, its analysis there (a deleted analysis,
 * dataset or project took the link with it), and the user who made it still enabled and still able to read the
 * analysis's project: its owner, or through a share with read made before the link (an unshare, or a share that
 * lost read, closes every link that user made there, and sharing again later does not open them again).
 */
export async function openableAnalysis(db: DataSource, tokenHash: Buffer): Promise<string | undefined> {
  const [row] = await rows<{ analysis_id: string }>(
    db,
    `SELECT l.analysis_id FROM report_links l
       JOIN analyses a ON a.id = l.analysis_id
       JOIN users u ON u.id = l.user_id AND u.disabled_at IS NULL
      WHERE l.token_hash = $1 AND l.expires_at > now()
        AND (EXISTS (SELECT 1 FROM projects p WHERE p.id = a.project_id AND p.owner_id = l.user_id)
          OR EXISTS (SELECT 1 FROM project_shares s
                      WHERE s.project_id = a.project_id AND s.user_id = l.user_id AND s.can_read AND s.created_at <= l.created_at))`,
    [tokenHash],
  );
  return row?.analysis_id === undefined ? undefined : String(row.analysis_id);
}
