/**
 * Reports and the moderation queue (docs/api/safety.md, "Reports and moderation"): the fixed lists
 * and the records the users service keeps.
 */

/** What can be reported, by the JSON:API type of the reported item. */
export const REPORT_TARGET_TYPES = ['story', 'chapter', 'comment', 'blog_post', 'private_message', 'user'] as const;
/** One of {@link REPORT_TARGET_TYPES}. */
export type ReportTargetType = (typeof REPORT_TARGET_TYPES)[number];

/** The fixed list of report reasons. */
export const REPORT_REASONS = ['spam', 'harassment', 'hate', 'sexual_content', 'violence', 'plagiarism', 'personal_information', 'other'] as const;
/** One of {@link REPORT_REASONS}. */
export type ReportReason = (typeof REPORT_REASONS)[number];

/** How an operator resolves a queue entry. */
export const MODERATION_ACTIONS = ['dismiss', 'hide', 'suspend'] as const;
/** One of {@link MODERATION_ACTIONS}. */
export type ModerationActionKind = (typeof MODERATION_ACTIONS)[number];

/** Most characters of an operator's name and of the reason an action gives. */
export const MODERATION_LIMITS = { operatorChars: 64, reasonChars: 2000, listMax: 200 } as const;

/** One user's report of one item. */
export interface Report {
  id: string;
  caseId: string;
  reporterId: string;
  targetType: ReportTargetType;
  targetId: string;
  reason: ReportReason;
  details: string;
  dateReported: Date;
}

/** What a reporter files; the snapshot and owner come from the gateway's read of the item. */
export interface NewReport {
  reporterId: string;
  targetType: ReportTargetType;
  targetId: string;
  reason: ReportReason;
  details: string;
  /** The item as the reporter saw it (JSON). */
  snapshot: string;
  /** The account the item belongs to; undefined when unknown. */
  ownerId?: string;
}

/** One queue entry: every report of one item while it was open. */
export interface ReportCase {
  id: string;
  targetType: ReportTargetType;
  targetId: string;
  ownerId?: string;
  snapshot: string;
  numReports: number;
  dateOpened: Date;
  /** Unset while the entry is open. */
  dateResolved?: Date;
}

/** One recorded operator action: who, when, what, why. */
export interface ModerationAction {
  id: string;
  caseId?: string;
  userId?: string;
  action: ModerationActionKind;
  operator: string;
  reason: string;
  dateTaken: Date;
}

/** A queue entry with its reports and the actions taken on it, oldest first. */
export interface ReportCaseDetail {
  reportCase: ReportCase;
  reports: Report[];
  actions: ModerationAction[];
}

/** An operator's decision on an open entry. */
export interface Resolution {
  caseId: string;
  action: ModerationActionKind;
  operator: string;
  reason: string;
}
