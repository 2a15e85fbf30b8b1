import type { RouteDefinition } from '../routing/route.types.js';
import { blogPostsRoutes, type BlogPostsRoutesDeps } from './blog-posts.routes.js';
import { bookshelvesRoutes, type BookshelvesRoutesDeps } from './bookshelves.routes.js';
import { chaptersRoutes, type ChaptersRoutesDeps } from './chapters.routes.js';
import { commentsRoutes, type CommentsRoutesDeps } from './comments.routes.js';
import { downloadsRoutes, type DownloadsRoutesDeps } from './downloads.routes.js';
import { notificationsRoutes, type NotificationsRoutesDeps } from './notifications.routes.js';
import { privateMessagesRoutes, type PrivateMessagesRoutesDeps } from './private-messages.routes.js';
import { ratingsRoutes, type RatingsRoutesDeps } from './ratings.routes.js';
import { readingRoutes, type ReadingRoutesDeps } from './reading.routes.js';
import { relationsRoutes, type RelationsRoutesDeps } from './relations.routes.js';
import { reportsRoutes, type ReportsRoutesDeps } from './reports.routes.js';
import { storiesRoutes, type StoriesRoutesDeps } from './stories.routes.js';
import { tagsRoutes, type TagsRoutesDeps } from './tags.routes.js';
import { usersRoutes, type UsersRoutesDeps } from './users.routes.js';
import { webhooksRoutes, type WebhooksRoutesDeps } from './webhooks.routes.js';

/** Everything the API's route files need; main.ts builds it once. */
export type ApiRoutesDeps = UsersRoutesDeps & PrivateMessagesRoutesDeps & NotificationsRoutesDeps & StoriesRoutesDeps & ChaptersRoutesDeps & TagsRoutesDeps & BlogPostsRoutesDeps & CommentsRoutesDeps & RatingsRoutesDeps & BookshelvesRoutesDeps & DownloadsRoutesDeps & ReadingRoutesDeps & WebhooksRoutesDeps & ReportsRoutesDeps & RelationsRoutesDeps;

/** Every route of /api/v1: one line per domain file. */
export function apiRoutes(deps: ApiRoutesDeps): RouteDefinition[] {
  return [...usersRoutes(deps), ...privateMessagesRoutes(deps), ...notificationsRoutes(deps), ...storiesRoutes(deps), ...chaptersRoutes(deps), ...tagsRoutes(deps), ...blogPostsRoutes(deps), ...commentsRoutes(deps), ...ratingsRoutes(deps), ...bookshelvesRoutes(deps), ...downloadsRoutes(deps), ...readingRoutes(deps), ...webhooksRoutes(deps), ...reportsRoutes(deps), ...relationsRoutes(deps)];
}
