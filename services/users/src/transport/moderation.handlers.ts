import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AppError } from '@inkwell/errors';
import type { IssuerTable, ServiceImpl } from '@inkwell/grpc';
import { ReportReason as ProtoReason, ReportSchema, type ModerationService, type Report as ProtoReport, type ReportTargetType as ProtoTargetType } from '@inkwell/proto/users';
import { REPORT_REASONS, REPORT_TARGET_TYPES, type Report, type ReportReason, type ReportTargetType } from '../domain/moderation.js';
import { TARGET_TYPE_TO_PROTO } from '../events/moderation.events.js';
import type { ModerationQueueService } from '../services/moderation.service.js';

/** Only the gateway files reports: it resolved the reported item as the caller sees it (docs/api/foundation.md, "Internal calls"). */
export const MODERATION_ISSUERS: IssuerTable<typeof ModerationService> = { createReport: ['gateway'] };

/** The domain name of each proto reason (`REPORT_REASON_SEXUAL_CONTENT` → `sexual_content`). */
const REASON_OF_PROTO = new Map<ProtoReason, ReportReason>(REPORT_REASONS.map((reason) => [ProtoReason[reason.toUpperCase() as keyof typeof ProtoReason], reason]));
const TARGET_OF_PROTO = new Map<ProtoTargetType, ReportTargetType>(REPORT_TARGET_TYPES.map((type) => [TARGET_TYPE_TO_PROTO[type], type]));
const PROTO_OF_REASON = new Map<ReportReason, ProtoReason>([...REASON_OF_PROTO].map(([proto, reason]) => [reason, proto]));

/** Domain report → proto. */
export function toProtoReport(report: Report): ProtoReport {
  return create(ReportSchema, {
    id: report.id,
    reporterId: report.reporterId,
    targetType: TARGET_TYPE_TO_PROTO[report.targetType],
    targetId: report.targetId,
    reason: PROTO_OF_REASON.get(report.reason) ?? ProtoReason.UNSPECIFIED,
    details: report.details,
    dateReported: timestampFromDate(report.dateReported),
  });
}

/** gRPC handlers of ModerationService: decode → one service call → encode. */
export function moderationHandlers(moderation: ModerationQueueService): ServiceImpl<typeof ModerationService> {
  return {
    async createReport(request, ctx) {
      const targetType = TARGET_OF_PROTO.get(request.targetType);
      const reason = REASON_OF_PROTO.get(request.reason);
      // The request rules refuse unknown values first; this only narrows the types.
      if (targetType === undefined || reason === undefined) throw AppError.validation('/data/attributes/reason', 'Unknown reason or target type.');
      const report = await moderation.report(ctx.caller, {
        targetType,
        targetId: request.targetId,
        reason,
        details: request.details,
        snapshot: request.snapshot,
        ...(request.ownerId === '0' ? {} : { ownerId: request.ownerId }),
      });
      return { report: toProtoReport(report) };
    },
  };
}
