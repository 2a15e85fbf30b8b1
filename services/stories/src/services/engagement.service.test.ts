import { closeMarkdown } from '@inkwell/markdown';
import { afterAll, describe, expect, it } from 'vitest';
import { FIRST_PAGE as firstPage, MemoryEngagementRepository, memoryStories, viewers } from '../testing/memory.repositories.js';
import { EngagementService } from './engagement.service.js';

const { author, reader, other } = viewers;
const draftRefused = { code: 'INVALID_ARGUMENT', details: [{ reason: 'validation_failed' }] };

afterAll(closeMarkdown);

describe('EngagementService votes', () => {
  it('keeps one vote per reader: like, change to dislike, withdraw', async () => {
    const { data, engagement } = memoryStories();
    const id = data.putStory('900', { published: true });

    expect(await engagement.setRating(id, 'like', reader)).toBe('like');
    expect(await engagement.setRating(id, 'dislike', reader)).toBe('dislike');
    expect(data.votes.get(`${id}:901`)).toBe('dislike');
    await engagement.deleteRating(id, reader);
    expect(data.votes.has(`${id}:901`)).toBe(false);
  });

  it('refuses a vote by the author (403), on another’s draft (404) and on one’s own draft (422)', async () => {
    const { data, engagement } = memoryStories();
    const published = data.putStory('900', { published: true });
    const draft = data.putStory('900');

    await expect(engagement.setRating(published, 'like', author)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(engagement.setRating(draft, 'like', reader)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(engagement.setRating(draft, 'like', author)).rejects.toMatchObject(draftRefused);
    expect(data.votes.size).toBe(0);
  });
});

describe('EngagementService comments', () => {
  it('posts comments on published stories and lists them oldest first', async () => {
    const { data, engagement } = memoryStories();
    const id = data.putStory('900', { published: true });

    const first = await engagement.createComment(id, 'Loved *this*.', reader);
    const second = await engagement.createComment(id, 'Thanks!', author);
    expect(first).toMatchObject({ storyId: id, authorId: '901', content: 'Loved *this*.' });
    expect(first.contentHtml).toContain('<em>this</em>');
    const page = await engagement.listComments(id, firstPage, other);
    expect(page.comments.map((comment) => comment.id)).toEqual([first.id, second.id]);
  });

  it('refuses comments on another’s draft (404) and on one’s own draft (422), and hides a draft’s comments', async () => {
    const { data, engagement } = memoryStories();
    const draft = data.putStory('900');

    await expect(engagement.createComment(draft, 'Hello', reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(engagement.createComment(draft, 'Hello', author)).rejects.toMatchObject(draftRefused);
    await expect(engagement.listComments(draft, firstPage, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lets the comment’s author and the story’s author delete a comment; others get 403', async () => {
    const { data, engagement } = memoryStories();
    const id = data.putStory('900', { published: true });
    const byReader = await engagement.createComment(id, 'One', reader);
    const another = await engagement.createComment(id, 'Two', reader);

    await expect(engagement.deleteComment(byReader.id, other)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await engagement.deleteComment(byReader.id, reader);
    await engagement.deleteComment(another.id, author);
    expect((await engagement.listComments(id, firstPage, other)).comments).toEqual([]);
    await expect(engagement.deleteComment(byReader.id, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers 404 to others for a comment on a story unpublished since', async () => {
    const { data, engagement, stories } = memoryStories();
    const id = data.putStory('900', { published: true });
    data.putChapter(id);
    const comment = await engagement.createComment(id, 'Early', reader);
    await stories.updateStory(id, { published: false }, author);

    await expect(engagement.deleteComment(comment.id, other)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await engagement.deleteComment(comment.id, reader);
  });
});

describe('EngagementService comments and blocks (docs/api/safety.md, "Blocking")', () => {
  it('refuses a comment between a story author and a user one of whom blocks the other (403), and hides the blocked in lists on request', async () => {
    const { data, stories } = memoryStories();
    const blocks = new Set<string>();
    const blockedEitherWay = async (userId: string, otherUserId: string) => blocks.has(`${userId}:${otherUserId}`) || blocks.has(`${otherUserId}:${userId}`);
    const engagement = new EngagementService(new MemoryEngagementRepository(data), stories, { blockedEitherWay });
    const id = data.putStory('900', { published: true });
    const before = await engagement.createComment(id, 'Early word.', reader);

    blocks.add(`900:${reader.userId!}`);
    await expect(engagement.createComment(id, 'Still here.', reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(engagement.authorizeComment(id, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await engagement.createComment(id, 'Own story.', author)).toMatchObject({ authorId: '900' });
    expect((await engagement.listComments(id, firstPage, author, [reader.userId!])).comments.map((comment) => comment.id)).not.toContain(before.id);
    expect((await engagement.listComments(id, firstPage, author)).comments.map((comment) => comment.id)).toContain(before.id);
  });
});
