import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { describe, expect, it } from 'vitest';
import { withdrawsPublicContent } from './cache-invalidation.consumer.js';

const envelopeOf = (payload: MessageInitShape<typeof EventEnvelopeSchema>['payload']) => create(EventEnvelopeSchema, { eventId: 'e', key: '5', payload });
const story = (published: boolean) => ({ storyId: '5', authorId: '7', published });
const chapter = (published: boolean) => ({ chapterId: '9', storyId: '5', authorId: '7', published });

describe('withdrawsPublicContent', () => {
  it('is true when a story or chapter stops being published, or goes', () => {
    expect(withdrawsPublicContent(envelopeOf({ case: 'storyUpdated', value: { story: story(false), previousPublished: true } }))).toBe(true);
    expect(withdrawsPublicContent(envelopeOf({ case: 'chapterUpdated', value: { chapter: chapter(false), previousPublished: true } }))).toBe(true);
    expect(withdrawsPublicContent(envelopeOf({ case: 'storyDeleted', value: { story: story(true) } }))).toBe(true);
    expect(withdrawsPublicContent(envelopeOf({ case: 'chapterDeleted', value: { chapter: chapter(true) } }))).toBe(true);
  });

  it('is true when a blog post goes (deleted or hidden) and when an account is suspended', () => {
    expect(withdrawsPublicContent(envelopeOf({ case: 'blogPostDeleted', value: {} }))).toBe(true);
    expect(withdrawsPublicContent(envelopeOf({ case: 'userSuspended', value: { userId: '7' } }))).toBe(true);
  });

  it('is false for what adds to or edits the public, and for drafts', () => {
    expect(withdrawsPublicContent(envelopeOf({ case: 'storyUpdated', value: { story: story(true), previousPublished: false } }))).toBe(false);
    expect(withdrawsPublicContent(envelopeOf({ case: 'storyUpdated', value: { story: story(true), previousPublished: true } }))).toBe(false);
    expect(withdrawsPublicContent(envelopeOf({ case: 'storyUpdated', value: { story: story(false), previousPublished: false } }))).toBe(false);
    expect(withdrawsPublicContent(envelopeOf({ case: 'chapterUpdated', value: { chapter: chapter(true), previousPublished: true } }))).toBe(false);
    expect(withdrawsPublicContent(envelopeOf({ case: 'storyCreated', value: { story: story(true) } }))).toBe(false);
    expect(withdrawsPublicContent(envelopeOf({ case: 'userUpdated', value: { userId: '7' } }))).toBe(false);
  });
});
