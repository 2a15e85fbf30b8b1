import { create } from '@bufbuild/protobuf';
import { BookshelfPrivacy } from '@inkwell/proto/bookshelves';
import { EventEnvelopeSchema, type EventEnvelope } from '@inkwell/proto/events';
import type { EventPayloadInit } from '@inkwell/events';
import { describe, expect, it } from 'vitest';
import { webhookEventOf, type VisibilityLookup } from './webhook-event.mapper.js';

const envelope = (payload: EventPayloadInit): EventEnvelope => create(EventEnvelopeSchema, { eventId: '0b4f6f3e-5f7a-4f55-9d4c-1e7a5d6b2c10', key: 'k', payload });
const lookup = (storyPublished: boolean, shelfPublic: boolean): VisibilityLookup => ({ storyIsPublished: async () => storyPublished, shelfIsPublic: async () => shelfPublic });
const story = (published: boolean) => ({ storyId: '3', authorId: '9', published });

describe('webhookEventOf (docs/api/webhooks.md, "Event types")', () => {
  it('names a story change by its transition; a draft is private to its author', async () => {
    const of = async (published: boolean, previousPublished: boolean) => webhookEventOf(envelope({ case: 'storyUpdated', value: { story: story(published), previousPublished } }), lookup(true, true));
    expect(await of(true, false)).toMatchObject({ type: 'story.published', resource: { type: 'story', id: '3', path: '/stories/3' } });
    expect(await of(true, true)).toMatchObject({ type: 'story.updated' });
    expect(await of(false, true)).toMatchObject({ type: 'story.unpublished' });
    expect(await of(false, false)).toMatchObject({ type: 'story.draft_updated', userId: '9' });
    expect(await of(true, false)).not.toHaveProperty('userId');
    expect(await webhookEventOf(envelope({ case: 'storyDeleted', value: { story: story(true) } }), lookup(true, true))).toMatchObject({ type: 'story.unpublished' });
    expect(await webhookEventOf(envelope({ case: 'storyDeleted', value: { story: story(false) } }), lookup(true, true))).toBeUndefined();
  });

  it('counts a published chapter only in a published story, and only when it becomes published', async () => {
    const chapter = { chapterId: '5', storyId: '3', published: true };
    expect(await webhookEventOf(envelope({ case: 'chapterUpdated', value: { chapter, previousPublished: false } }), lookup(true, true))).toMatchObject({ type: 'chapter.published', resource: { path: '/chapters/5' } });
    expect(await webhookEventOf(envelope({ case: 'chapterUpdated', value: { chapter, previousPublished: false } }), lookup(false, true))).toBeUndefined();
    expect(await webhookEventOf(envelope({ case: 'chapterUpdated', value: { chapter, previousPublished: true } }), lookup(true, true))).toBeUndefined();
  });

  it('makes a shelf change public for a public shelf and private to its owner otherwise', async () => {
    const item = { itemId: '1', bookshelfId: '4', ownerId: '8', storyId: '3' };
    expect(await webhookEventOf(envelope({ case: 'bookshelfItemAdded', value: { item } }), lookup(true, true))).toMatchObject({ type: 'bookshelf.updated', resource: { type: 'bookshelf', id: '4' } });
    expect(await webhookEventOf(envelope({ case: 'bookshelfItemRemoved', value: { item } }), lookup(true, false))).toMatchObject({ type: 'private_bookshelf.updated', userId: '8' });
    const shelf = { bookshelfId: '4', ownerId: '8', privacy: BookshelfPrivacy.PRIVATE };
    expect(await webhookEventOf(envelope({ case: 'bookshelfUpdated', value: { bookshelf: shelf } }), lookup(true, true))).toMatchObject({ type: 'private_bookshelf.updated', userId: '8' });
  });

  it('makes a sent message private to its recipient, and ignores events no app is told of', async () => {
    expect(await webhookEventOf(envelope({ case: 'messageSent', value: { messageId: '6', senderId: '1', recipientId: '2' } }), lookup(true, true))).toMatchObject({ type: 'private_message.received', userId: '2', resource: { type: 'private_message', path: '/private-messages/6' } });
    expect(await webhookEventOf(envelope({ case: 'storyViewed', value: { storyId: '3', chapterId: '5' } }), lookup(true, true))).toBeUndefined();
    expect(await webhookEventOf(envelope({ case: 'messageReadChanged', value: { messageId: '6', senderId: '1', recipientId: '2', read: true } }), lookup(true, true))).toBeUndefined();
  });
});
