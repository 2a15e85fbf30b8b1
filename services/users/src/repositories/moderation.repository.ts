import type pg from 'pg';
import { AppError, ErrorCode } from '@inkwell/errors';
import { appendEvent } from '@inkwell/events';
import { withPgErrors, withTransaction } from '@inkwell/pg';
import type { ModerationAction, ModerationActionKind, NewReport, Report, ReportCase, ReportCaseDetail, ReportReason, ReportTargetType, Resolution } from '../domain/moderation.js';
import { contentHidden, userSuspended } from '../events/moderation.events.js';

interface CaseRow {
  id: string;
  target_type: ReportTargetType;
  target_id: string;
  owner_id: string | null;
  snapshot: string;
  num_reports: number;
  date_opened: Date;
  date_resolved: Date | null;
}

interface ReportRow {
  id: string;
  case_id: string;
  reporter_id: string;
  reason: ReportReason;
  details: string;
  date_reported: Date;
  target_type: ReportTargetType;
  target_id: string;
}

interface ActionRow {
  id: string;
  case_id: string | null;
  user_id: string | null;
  action: ModerationActionKind;
  operator: string;
  reason: string;
  date_taken: Date;
}

const CASE_COLUMNS = 'id, target_type, target_id, owner_id, snapshot, num_reports, date_opened, date_resolved';
const REPORT_COLUMNS = 'r.id, r.case_id, r.reporter_id, r.reason, r.details, r.date_reported, c.target_type, c.target_id';
const ACTION_COLUMNS = 'id, case_id, user_id, action, operator, reason, date_taken';

function toCase(row: CaseRow): ReportCase {
  return {
    id: String(row.id),
    targetType: row.target_type,
    targetId: String(row.target_id),
    ...(row.owner_id === null ? {} : { ownerId: String(row.owner_id) }),
    snapshot: row.snapshot,
    numReports: row.num_reports,
    dateOpened: row.date_opened,
    ...(row.date_resolved === null ? {} : { dateResolved: row.date_resolved }),
  };
}

function toReport(row: ReportRow): Report {
  return {
    id: String(row.id),
    caseId: String(row.case_id),
    reporterId: String(row.reporter_id),
    targetType: row.target_type,
    targetId: String(row.target_id),
    reason: row.reason,
    details: row.details,
    dateReported: row.date_reported,
  };
}

function toAction(row: ActionRow): ModerationAction {
  return {
    id: String(row.id),
    ...(row.case_id === null ? {} : { caseId: String(row.case_id) }),
    ...(row.user_id === null ? {} : { userId: String(row.user_id) }),
    action: row.action,
    operator: row.operator,
    reason: row.reason,
    dateTaken: row.date_taken,
  };
}

/** What a resolution did: the resolved entry and the account it suspended, if any. */
export interface ResolutionOutcome {
  reportCase: ReportCase;
  action: ModerationAction;
  suspendedUserId?: string;
}

/**
 * SQL access to reports, the queue (report_cases) and the record of operator actions
 * (migration 0009). A report and its entry's count change in one transaction under a lock on the
 * entry, so concurrent reports of one item join one entry and count exactly; a resolution, its
 * action record, the suspension and the events (ContentHidden, UserSuspended, through the
 * outbox) are one transaction too.
 */
export class ModerationRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Files `report`: joins the item's open entry (opening one with the report's snapshot when there
   * is none) and counts the reporter once. Returns the reporter's report on the entry: the new
   * one, or the one they had already filed.
   */
  async report(report: NewReport): Promise<Report> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        // Insert-or-find, then lock: two first reports of an item race on the unique open-entry index, and one waits.
        await client.query(
          `INSERT INTO report_cases (target_type, target_id, owner_id, snapshot) VALUES ($1, $2, $3, $4)
           ON CONFLICT (target_type, target_id) WHERE date_resolved IS NULL DO NOTHING`,
          [report.targetType, report.targetId, report.ownerId ?? null, report.snapshot],
        );
        const { rows: cases } = await client.query<{ id: string }>(
          'SELECT id FROM report_cases WHERE target_type = $1 AND target_id = $2 AND date_resolved IS NULL FOR UPDATE',
          [report.targetType, report.targetId],
        );
        const caseId = cases[0]!.id;
        const { rows: inserted } = await client.query<{ id: string }>(
          `INSERT INTO reports (case_id, reporter_id, reason, details) VALUES ($1, $2, $3, $4)
           ON CONFLICT (case_id, reporter_id) DO NOTHING RETURNING id`,
          [caseId, report.reporterId, report.reason, report.details],
        );
        if (inserted.length > 0) await client.query('UPDATE report_cases SET num_reports = num_reports + 1 WHERE id = $1', [caseId]);
        const { rows } = await client.query<ReportRow>(
          `SELECT ${REPORT_COLUMNS} FROM reports r JOIN report_cases c ON c.id = r.case_id WHERE r.case_id = $1 AND r.reporter_id = $2`,
          [caseId, report.reporterId],
        );
        return toReport(rows[0]!);
      });
    });
  }

  /** Up to `limit` open entries, oldest first. */
  async listOpen(limit: number): Promise<ReportCase[]> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<CaseRow>(
        `SELECT ${CASE_COLUMNS} FROM report_cases WHERE date_resolved IS NULL ORDER BY date_opened, id LIMIT $1`,
        [limit],
      );
      return rows.map(toCase);
    });
  }

  /** Entry `caseId` with its reports and actions, oldest first; undefined when there is none. */
  async findCase(caseId: string): Promise<ReportCaseDetail | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<CaseRow>(`SELECT ${CASE_COLUMNS} FROM report_cases WHERE id = $1`, [caseId]);
      if (rows[0] === undefined) return undefined;
      const [{ rows: reports }, { rows: actions }] = await Promise.all([
        this.pool.query<ReportRow>(`SELECT ${REPORT_COLUMNS} FROM reports r JOIN report_cases c ON c.id = r.case_id WHERE r.case_id = $1 ORDER BY r.date_reported, r.id`, [caseId]),
        this.pool.query<ActionRow>(`SELECT ${ACTION_COLUMNS} FROM moderation_actions WHERE case_id = $1 ORDER BY date_taken, id`, [caseId]),
      ]);
      return { reportCase: toCase(rows[0]), reports: reports.map(toReport), actions: actions.map(toAction) };
    });
  }

  /**
   * Resolves open entry `resolution.caseId`: closes it, records the action and, for `hide`,
   * publishes ContentHidden; for `suspend`, marks `suspendUserId` suspended (once) and publishes
   * UserSuspended. NOT_FOUND for an unknown entry, FAILED_PRECONDITION for a resolved one.
   */
  async resolve(resolution: Resolution, suspendUserId?: string): Promise<ResolutionOutcome> {
    return withPgErrors(async () => {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<CaseRow>(`SELECT ${CASE_COLUMNS} FROM report_cases WHERE id = $1 FOR UPDATE`, [resolution.caseId]);
        if (rows[0] === undefined) throw AppError.notFound('report');
        if (rows[0].date_resolved !== null) throw new AppError(ErrorCode.FAILED_PRECONDITION, `Report ${resolution.caseId} is already resolved.`);
        const { rows: resolved } = await client.query<CaseRow>(`UPDATE report_cases SET date_resolved = now() WHERE id = $1 RETURNING ${CASE_COLUMNS}`, [resolution.caseId]);
        const reportCase = toCase(resolved[0]!);
        const { rows: recorded } = await client.query<ActionRow>(
          `INSERT INTO moderation_actions (case_id, user_id, action, operator, reason) VALUES ($1, $2, $3, $4, $5) RETURNING ${ACTION_COLUMNS}`,
          [reportCase.id, suspendUserId ?? null, resolution.action, resolution.operator, resolution.reason],
        );
        if (resolution.action === 'hide') await appendEvent(client, { key: reportCase.targetId, payload: contentHidden(reportCase) });
        let suspendedUserId: string | undefined;
        if (suspendUserId !== undefined) {
          const { rowCount } = await client.query('UPDATE users SET suspended_at = now() WHERE id = $1 AND suspended_at IS NULL', [suspendUserId]);
          if (rowCount === 0) {
            const { rows: existing } = await client.query('SELECT 1 FROM users WHERE id = $1', [suspendUserId]);
            if (existing.length === 0) throw AppError.notFound('user');
          } else {
            await appendEvent(client, { key: suspendUserId, payload: userSuspended(suspendUserId) });
          }
          suspendedUserId = suspendUserId;
        }
        return { reportCase, action: toAction(recorded[0]!), ...(suspendedUserId === undefined ? {} : { suspendedUserId }) };
      });
    });
  }
}
