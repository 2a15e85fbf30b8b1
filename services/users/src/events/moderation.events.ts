import { create } from '@bufbuild/protobuf';
import type { EventPayloadInit } from '@inkwell/events';
import { ContentHiddenSchema, ReportTargetType as ProtoTargetType, UserSuspendedSchema } from '@inkwell/proto/users';
import type { ReportCase, ReportTargetType } from '../domain/moderation.js';

/** The proto value of each target type. */
export const TARGET_TYPE_TO_PROTO: Readonly<Record<ReportTargetType, ProtoTargetType>> = {
  story: ProtoTargetType.STORY,
  chapter: ProtoTargetType.CHAPTER,
  comment: ProtoTargetType.COMMENT,
  blog_post: ProtoTargetType.BLOG_POST,
  private_message: ProtoTargetType.PRIVATE_MESSAGE,
  user: ProtoTargetType.USER,
};

/** The `ContentHidden` outbox payload: an operator hid the item of `reportCase`. */
export function contentHidden(reportCase: ReportCase): EventPayloadInit {
  return {
    case: 'contentHidden',
    value: create(ContentHiddenSchema, { targetType: TARGET_TYPE_TO_PROTO[reportCase.targetType], targetId: reportCase.targetId, caseId: reportCase.id }),
  };
}

/** The `UserSuspended` outbox payload. */
export function userSuspended(userId: string): EventPayloadInit {
  return { case: 'userSuspended', value: create(UserSuspendedSchema, { userId }) };
}
