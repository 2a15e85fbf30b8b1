import { AppError, ErrorCode } from '@inkwell/errors';
import { MODERATION_LIMITS, type ModerationActionKind, type NewReport, type Report, type ReportCase, type ReportCaseDetail, type Resolution } from '../domain/moderation.js';
import type { Viewer } from '../domain/user.js';
import type { ModerationRepository, ResolutionOutcome } from '../repositories/moderation.repository.js';
import { callerUserId } from './caller-user.guard.js';
import type { OAuthTokenService } from './oauth-token.service.js';

/** What the moderation rules read and write: ModerationRepository. */
export type ModerationStore = Pick<ModerationRepository, 'report' | 'listOpen' | 'findCase' | 'resolve'>;

/** What a resolution did, for the operator: the entry, the recorded action, and the tokens a suspension revoked. */
export interface ResolutionResult extends ResolutionOutcome {
  revokedTokens: number;
}

/**
 * The rules of reports and the moderation queue (docs/api/safety.md, "Reports and moderation"):
 * users report items the gateway has resolved as they see them; reports of one item join its one
 * open entry; operators list, show and resolve entries (dismiss, hide the item, suspend its
 * owner), and every resolution is recorded with who, when and why. A suspension revokes every
 * token of the account at once (the gateways hear of it on the revocation channel).
 */
export class ModerationQueueService {
  constructor(
    private readonly store: ModerationStore,
    private readonly tokens: Pick<OAuthTokenService, 'revokeUserTokens'>,
  ) {}

  /** The caller's user files a report (valid by CreateReportRequest's rules). Reporting yourself or your own content is refused. */
  async report(caller: Viewer, report: Omit<NewReport, 'reporterId'>): Promise<Report> {
    const reporterId = callerUserId(caller, 'Reports are made by a signed-in user.');
    if (report.ownerId === reporterId) throw AppError.validation('/data/attributes/target_id', 'You cannot report yourself or your own content.');
    return this.store.report({ ...report, details: report.details.trim(), reporterId });
  }

  /** The open queue entries, oldest first, at most `limit` (1–200). */
  async listOpen(limit: number = MODERATION_LIMITS.listMax): Promise<ReportCase[]> {
    return this.store.listOpen(Math.min(Math.max(1, Math.trunc(limit)), MODERATION_LIMITS.listMax));
  }

  /** One entry with its snapshot, reports and actions; NOT_FOUND when there is none. */
  async show(caseId: string): Promise<ReportCaseDetail> {
    if (!/^[1-9][0-9]{0,18}$/.test(caseId)) throw AppError.notFound('report');
    const detail = await this.store.findCase(caseId);
    if (detail === undefined) throw AppError.notFound('report');
    return detail;
  }

  /**
   * Resolves an open entry. `dismiss` only closes it; `hide` closes it and has the owning service
   * hide the item (not for a reported user: suspend them); `suspend` closes it, suspends the
   * account the item belongs to (the user, for a reported user) and revokes all its tokens.
   */
  async resolve(resolution: Resolution): Promise<ResolutionResult> {
    const operator = resolution.operator.trim();
    const reason = resolution.reason.trim();
    if (operator === '' || operator.length > MODERATION_LIMITS.operatorChars) throw invalid(`The operator's name is 1 to ${MODERATION_LIMITS.operatorChars} characters.`);
    if (reason === '' || reason.length > MODERATION_LIMITS.reasonChars) throw invalid(`The reason is 1 to ${MODERATION_LIMITS.reasonChars} characters.`);
    const { reportCase } = await this.show(resolution.caseId);
    const suspendUserId = resolution.action === 'suspend' ? accountOf(reportCase) : undefined;
    if (resolution.action === 'hide' && reportCase.targetType === 'user') throw invalid('A user cannot be hidden: suspend the account instead.');
    const outcome = await this.store.resolve({ ...resolution, operator, reason }, suspendUserId);
    const revokedTokens = outcome.suspendedUserId === undefined ? 0 : await this.tokens.revokeUserTokens(outcome.suspendedUserId);
    return { ...outcome, revokedTokens };
  }
}

/** The account a suspension acts on: the reported user, or the owner of the reported item. */
function accountOf(reportCase: ReportCase): string {
  if (reportCase.targetType === 'user') return reportCase.targetId;
  if (reportCase.ownerId === undefined) throw invalid('This report names no account to suspend.');
  return reportCase.ownerId;
}

function invalid(message: string): AppError {
  return new AppError(ErrorCode.INVALID_ARGUMENT, message, { details: [{ reason: 'validation_failed', detail: message }] });
}

/** True when `value` is one of the moderation actions. */
export function isModerationAction(value: string): value is ModerationActionKind {
  return value === 'dismiss' || value === 'hide' || value === 'suspend';
}
