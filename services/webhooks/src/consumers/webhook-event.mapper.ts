import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import type { EventEnvelope } from '@inkwell/proto/events';
import { occurredAtOf } from '@inkwell/events';
import type { EventType } from '../domain/event-types.js';
import type { ResourceRef, WebhookEvent } from '../domain/webhook-event.js';

/** What the mapper reads of the service's copies: is a story published, is a shelf public. */
export interface VisibilityLookup {
  storyIsPublished(storyId: string): Promise<boolean>;
  shelfIsPublic(shelfId: string): Promise<boolean>;
}

/** A shelf's state as the copy of known shelves keeps it. */
export interface ShelfState {
  id: string;
  ownerId: string;
  public: boolean;
  deleted: boolean;
}

const story = (id: string): ResourceRef => ({ type: 'story', id, path: `/stories/${id}` });
const chapter = (id: string): ResourceRef => ({ type: 'chapter', id, path: `/chapters/${id}` });
const blogPost = (id: string): ResourceRef => ({ type: 'blog_post', id, path: `/blog-posts/${id}` });
const bookshelf = (id: string): ResourceRef => ({ type: 'bookshelf', id, path: `/bookshelves/${id}` });
const privateMessage = (id: string): ResourceRef => ({ type: 'private_message', id, path: `/private-messages/${id}` });

/** The shelf state a bookshelf event leaves, for the copy of known shelves; undefined for other events. */
export function shelfStateOf(envelope: EventEnvelope): ShelfState | undefined {
  const { payload } = envelope;
  switch (payload.case) {
    case 'bookshelfCreated':
    case 'bookshelfUpdated':
    case 'bookshelfDeleted': {
      const shelf = payload.value.bookshelf;
      if (!shelf) return undefined;
      return { id: shelf.bookshelfId, ownerId: shelf.ownerId, public: shelf.privacy === BookshelfPrivacy.PUBLIC, deleted: payload.case === 'bookshelfDeleted' };
    }
    default:
      return undefined;
  }
}

/**
 * The webhook event a Kafka event makes, if any (docs/api/webhooks.md, "Event types"), with the
 * Kafka event's id. A story's transition picks the type (published, updated, unpublished, or a
 * draft's change, private to its author); a chapter counts only when its story is published in
 * the copy; a shelf change is public for a public shelf and private to its owner otherwise (a
 * shelf the copy does not know yet counts as private).
 */
export async function webhookEventOf(envelope: EventEnvelope, visibility: VisibilityLookup): Promise<WebhookEvent | undefined> {
  const make = (type: EventType, resource: ResourceRef, userId?: string): WebhookEvent => ({
    id: envelope.eventId,
    type,
    occurredAt: occurredAtOf(envelope),
    resource,
    ...(userId === undefined ? {} : { userId }),
  });
  const { payload } = envelope;
  switch (payload.case) {
    case 'storyCreated': {
      const snapshot = payload.value.story;
      return snapshot && make('story.draft_updated', story(snapshot.storyId), snapshot.authorId);
    }
    case 'storyUpdated': {
      const snapshot = payload.value.story;
      if (!snapshot) return undefined;
      const was = payload.value.previousPublished;
      if (snapshot.published) return make(was ? 'story.updated' : 'story.published', story(snapshot.storyId));
      return was ? make('story.unpublished', story(snapshot.storyId)) : make('story.draft_updated', story(snapshot.storyId), snapshot.authorId);
    }
    case 'storyDeleted': {
      const snapshot = payload.value.story;
      return snapshot?.published ? make('story.unpublished', story(snapshot.storyId)) : undefined;
    }
    case 'chapterCreated':
    case 'chapterUpdated': {
      const snapshot = payload.value.chapter;
      if (!snapshot?.published) return undefined;
      if (payload.case === 'chapterUpdated' && payload.value.previousPublished) return undefined;
      return (await visibility.storyIsPublished(snapshot.storyId)) ? make('chapter.published', chapter(snapshot.chapterId)) : undefined;
    }
    case 'blogPostCreated': {
      const snapshot = payload.value.blogPost;
      return snapshot && make('blog_post.published', blogPost(snapshot.blogPostId));
    }
    case 'bookshelfCreated':
    case 'bookshelfUpdated':
    case 'bookshelfDeleted': {
      const shelf = shelfStateOf(envelope);
      if (!shelf) return undefined;
      return shelf.public ? make('bookshelf.updated', bookshelf(shelf.id)) : make('private_bookshelf.updated', bookshelf(shelf.id), shelf.ownerId);
    }
    case 'bookshelfItemAdded':
    case 'bookshelfItemRemoved': {
      const item = payload.value.item;
      if (!item) return undefined;
      return (await visibility.shelfIsPublic(item.bookshelfId))
        ? make('bookshelf.updated', bookshelf(item.bookshelfId))
        : make('private_bookshelf.updated', bookshelf(item.bookshelfId), item.ownerId);
    }
    case 'messageSent':
      return make('private_message.received', privateMessage(payload.value.messageId), payload.value.recipientId);
    default:
      return undefined;
  }
}
