import { toJson, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { AppError } from '@inkwell/errors';
import type { GrpcClient } from '@inkwell/grpc';
import { BlogPostSchema, type BlogService } from '@inkwell/proto/blog';
import { PrivateMessageSchema, type MessagingService } from '@inkwell/proto/messaging';
import { ChapterSchema, CommentSchema, StorySchema, type StoriesService } from '@inkwell/proto/stories';
import { ModerationService, ReportTargetType, UserSchema, type UsersService } from '@inkwell/proto/users';
import type { ApiLinks } from '../jsonapi/api-links.js';
import { defineDocumentSpec, type DocumentResponder } from '../jsonapi/index.js';
import type { ReportThrottle } from '../ratelimit/report.throttle.js';
import { REPORT_REASON, REPORT_SCHEMA, REPORT_TARGET_TYPE, REPORT_WRITE, reportOf } from '../resources/report.resource.js';
import { USER_SCHEMA } from '../resources/user.resource.js';
import { routeKinds } from '../routing/route-kinds.js';
import { namedRpc, type RpcOptions } from '../routing/route-rpc.js';
import type { RouteDefinition } from '../routing/route.types.js';

/** What the report route needs: every service that owns a reportable item, the reports' budget, links and documents. */
export interface ReportsRoutesDeps {
  readonly moderation: GrpcClient<typeof ModerationService>;
  readonly users: GrpcClient<typeof UsersService>;
  readonly stories: GrpcClient<typeof StoriesService>;
  readonly blog: GrpcClient<typeof BlogService>;
  readonly messaging: GrpcClient<typeof MessagingService>;
  readonly reportThrottle: ReportThrottle;
  readonly links: ApiLinks;
  readonly documents: DocumentResponder;
}

/** The response of POST /reports: `include` reporter, and `fields`. */
export const REPORT_DOCUMENT = defineDocumentSpec({ resource: REPORT_SCHEMA, types: [USER_SCHEMA], includes: ['reporter'] });

/** Most bytes of a snapshot (CreateReportRequest.snapshot), and the characters a long text of it keeps when it is over. */
const SNAPSHOT_MAX_BYTES = 262_144;
const SNAPSHOT_TEXT_KEPT_CHARS = 16_384;

/** The reported item as the reporter saw it, and the account it belongs to ('0' when none). */
interface ResolvedTarget {
  readonly snapshot: string;
  readonly ownerId: string;
}

/**
 * The JSON of `message` as the queue keeps it: whole when it fits the snapshot bound, else with
 * every long text cut to its first {@link SNAPSHOT_TEXT_KEPT_CHARS} characters (marked).
 */
function snapshotOf<D extends DescMessage>(schema: D, message: MessageShape<D>): string {
  const json = toJson(schema, message) as Record<string, unknown>;
  const whole = JSON.stringify(json);
  if (Buffer.byteLength(whole) <= SNAPSHOT_MAX_BYTES) return whole;
  const cut = Object.fromEntries(
    Object.entries(json).map(([key, value]) => [key, typeof value === 'string' && value.length > SNAPSHOT_TEXT_KEPT_CHARS ? `${value.slice(0, SNAPSHOT_TEXT_KEPT_CHARS)}… [cut]` : value]),
  );
  return JSON.stringify(cut);
}

/**
 * Reads the reported item as the reporter may see it, through the service that owns it and with
 * the reporter's own call (so NOT_FOUND, 404, wherever they could not read it). A private message
 * must be one the reporter received: one they only sent is NOT_FOUND too.
 */
async function resolveTarget(deps: ReportsRoutesDeps, type: ReportTargetType, id: string, options: RpcOptions): Promise<ResolvedTarget> {
  switch (type) {
    case ReportTargetType.STORY: {
      const { story } = await deps.stories.getStory({ id }, options);
      if (story === undefined) throw AppError.notFound('story');
      return { snapshot: snapshotOf(StorySchema, story), ownerId: story.authorId };
    }
    case ReportTargetType.CHAPTER: {
      const { chapter } = await deps.stories.getChapter({ id, includeContent: true }, options);
      if (chapter === undefined) throw AppError.notFound('chapter');
      const { story } = await deps.stories.getStory({ id: chapter.storyId }, options);
      return { snapshot: snapshotOf(ChapterSchema, chapter), ownerId: story?.authorId ?? '0' };
    }
    case ReportTargetType.COMMENT: {
      const { comment } = await deps.stories.getComment({ id }, options);
      if (comment === undefined) throw AppError.notFound('comment');
      return { snapshot: snapshotOf(CommentSchema, comment), ownerId: comment.authorId };
    }
    case ReportTargetType.BLOG_POST: {
      const { blogPost } = await deps.blog.getBlogPost({ id, includeContent: true }, options);
      if (blogPost === undefined) throw AppError.notFound('blog_post');
      return { snapshot: snapshotOf(BlogPostSchema, blogPost), ownerId: blogPost.authorId };
    }
    case ReportTargetType.PRIVATE_MESSAGE: {
      const { privateMessage } = await deps.messaging.getPrivateMessage({ id }, options);
      if (privateMessage === undefined || privateMessage.recipientId !== options.caller.userId) throw AppError.notFound('private_message');
      return { snapshot: snapshotOf(PrivateMessageSchema, privateMessage), ownerId: privateMessage.senderId };
    }
    case ReportTargetType.USER: {
      const { user } = await deps.users.getUser({ id }, options);
      if (user === undefined) throw AppError.notFound('user');
      return { snapshot: snapshotOf(UserSchema, { ...user, email: undefined }), ownerId: user.id };
    }
    default:
      throw AppError.notFound('target');
  }
}

/**
 * POST /reports (docs/api/safety.md, "Reports and moderation"): any signed-in user reports a story,
 * chapter, comment, blog post, private message they received, or user. Each report first takes
 * one of the reporter's report budget (ReportThrottle: 429 beyond it), then the item is read as
 * the reporter sees it (404 when they cannot) and filed with that snapshot.
 */
export function reportsRoutes(deps: ReportsRoutesDeps): RouteDefinition[] {
  const route = routeKinds({ documents: deps.documents, links: deps.links });
  const createReport = namedRpc(ModerationService.method.createReport, async (request, options) => {
    await deps.reportThrottle.take(options.caller.userId ?? '');
    const { targetType = ReportTargetType.UNSPECIFIED, targetId = '0' } = request;
    const target = await resolveTarget(deps, targetType, String(targetId), options);
    return deps.moderation.createReport({ ...request, ...target }, options);
  });
  return [
    route.create({
      path: '/reports',
      doc: {
        summary: 'Report a story, chapter, comment, blog post, private message you received, or user to the moderators.',
        description: 'Reports of one item join one queue entry; reporting the same item again while it is open answers your first report. At most 20 reports an hour per user.',
        errors: ['not_found', 'rate_limited'],
      },
      query: REPORT_DOCUMENT,
      body: REPORT_WRITE,
      toRequest: ({ body }) => ({
        targetType: REPORT_TARGET_TYPE.toProto(body.attributes.target_type),
        targetId: body.attributes.target_id ?? '0',
        reason: REPORT_REASON.toProto(body.attributes.reason),
        details: body.attributes.details ?? '',
      }),
      rpc: createReport,
      toResource: reportOf,
    }),
  ];
}
