import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@inkwell/errors';
import { RatingValue } from '@inkwell/proto/stories';
import { eventually } from '@inkwell/testing';
import { wilsonRating } from '../src/domain/rating.js';
import { author, caller, startStories, type StoriesHarness } from './harness.js';
import { startStatsFeed, type StatsFeed } from './stats-feed.js';

describe('votes and comments over gRPC, and the counts they drive', () => {
  let h: StoriesHarness;
  let feed: StatsFeed;
  const writer = author('401');
  const reader = (userId: string) => caller({ userId }, ['write_ratings', 'write_comments']);
  let published = '';
  let draft = '';

  beforeAll(async () => {
    h = await startStories('inkwell_test_stories_engagement');
    published = (await h.client.createStory({ title: 'Rate me' }, writer)).story!.id;
    await h.client.createChapter({ storyId: published, title: 'One', content: 'text', published: true }, writer);
    await h.client.updateStory({ id: published, published: true }, writer);
    draft = (await h.client.createStory({ title: 'Not yet' }, writer)).story!.id;

    feed = await startStatsFeed(h, 'stories-engagement');
  });

  afterAll(async () => {
    await feed?.close();
    await h?.close();
  });

  const votes = async () =>
    (await h.pool.query<{ type: string }>("SELECT type FROM outbox WHERE type = 'inkwell.stories.v1.StoryRated' ORDER BY id")).rows.length;

  it('keeps one vote per user: like, again, change, withdraw', async () => {
    expect((await h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, reader('402'))).value).toBe(RatingValue.LIKE);
    expect(await votes()).toBe(1);
    await h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, reader('402'));
    expect(await votes()).toBe(1);
    await h.client.setStoryRating({ storyId: published, value: RatingValue.DISLIKE }, reader('402'));
    await h.client.deleteStoryRating({ storyId: published }, reader('402'));
    await h.client.deleteStoryRating({ storyId: published }, reader('402'));
    expect(await votes()).toBe(3);
    await h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, reader('403'));
    await h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, reader('404'));
    await h.client.setStoryRating({ storyId: published, value: RatingValue.DISLIKE }, reader('405'));
  });

  it('refuses votes without the scope, by apps, by the author, on drafts, and without a value', async () => {
    await expect(h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, caller({ userId: '402' }))).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      details: [{ reason: 'insufficient_scope', scope: 'write_ratings' }],
    });
    await expect(h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, caller({ appId: 'app' }, ['write_ratings']))).rejects.toMatchObject({
      code: ErrorCode.UNAUTHENTICATED,
      details: [{ reason: 'invalid_token' }],
    });
    await expect(h.client.setStoryRating({ storyId: published, value: RatingValue.LIKE }, caller({ userId: '401' }, ['write_ratings']))).rejects.toMatchObject({ details: [{ reason: 'forbidden' }] });
    await expect(h.client.setStoryRating({ storyId: draft, value: RatingValue.LIKE }, reader('402'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.setStoryRating({ storyId: draft, value: RatingValue.LIKE }, caller({ userId: '401' }, ['write_ratings']))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'validation_failed' }],
    });
    await expect(h.client.setStoryRating({ storyId: published }, reader('402'))).rejects.toMatchObject({ details: [{ reason: 'validation_failed', pointer: '/data/attributes/value' }] });
    await expect(h.client.setStoryRating({ storyId: '987654', value: RatingValue.LIKE }, reader('402'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('refuses a vote without a value first for a story the caller may not rate (docs/api/foundation.md, "One contract")', async () => {
    await expect(h.client.setStoryRating({ storyId: draft }, reader('402'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.setStoryRating({ storyId: '987654' }, reader('402'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.setStoryRating({ storyId: published }, caller({ userId: '401' }, ['write_ratings']))).rejects.toMatchObject({ details: [{ reason: 'forbidden' }] });
    await expect(h.client.createComment({ storyId: draft, content: ' ' }, reader('402'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('posts comments on published stories only, lists them oldest first, and lets the right people delete them', async () => {
    const first = (await h.client.createComment({ storyId: published, content: 'Loved *this*' }, reader('402'))).comment!;
    expect(first).toMatchObject({ storyId: published, authorId: '402', content: 'Loved *this*', contentHtml: '<p>Loved <em>this</em></p>' });
    const second = (await h.client.createComment({ storyId: published, content: 'Me too' }, reader('403'))).comment!;
    const third = (await h.client.createComment({ storyId: published, content: 'And me' }, reader('404'))).comment!;
    await expect(h.client.createComment({ storyId: published, content: '   ' }, reader('402'))).rejects.toMatchObject({ details: [{ pointer: '/data/attributes/content' }] });
    await expect(h.client.createComment({ storyId: draft, content: 'x' }, reader('402'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    await expect(h.client.createComment({ storyId: draft, content: 'x' }, caller({ userId: '401' }, ['write_comments']))).rejects.toMatchObject({ details: [{ reason: 'validation_failed' }] });

    const page1 = await h.client.listComments({ storyId: published, pageSize: 2 }, caller({ appId: 'app' }));
    const page2 = await h.client.listComments({ storyId: published, pageSize: 2, after: page1.nextAfter }, caller({ appId: 'app' }));
    expect([...page1.comments, ...page2.comments].map((c) => c.id)).toEqual([first.id, second.id, third.id]);
    expect(page2.nextAfter).toBe('');
    await expect(h.client.listComments({ storyId: draft }, caller({ appId: 'app' }))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    // A cursor longer than any position of ours is refused by the request rules before any decoding.
    await expect(h.client.listComments({ storyId: published, after: 'x'.repeat(513) }, caller({ appId: 'app' }))).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      details: [{ reason: 'invalid_cursor' }],
    });

    await expect(h.client.deleteComment({ id: first.id }, reader('405'))).rejects.toMatchObject({ details: [{ reason: 'forbidden' }] });
    await h.client.deleteComment({ id: first.id }, reader('402'));
    await h.client.deleteComment({ id: second.id }, caller({ userId: '401' }, ['write_comments']));
    await expect(h.client.deleteComment({ id: second.id }, reader('403'))).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
    expect((await h.client.listComments({ storyId: published }, caller({ appId: 'app' }))).comments.map((c) => c.id)).toEqual([third.id]);
  });

  it('applies votes and comments from their events once each: likes, dislikes, rating, comments, heat', async () => {
    const before = (await h.client.getStory({ id: published }, caller({ appId: 'app' }))).story!;
    const { rows } = await h.pool.query<{ payload: Buffer }>(
      "SELECT payload FROM outbox WHERE type IN ('inkwell.stories.v1.StoryRated', 'inkwell.stories.v1.CommentCreated', 'inkwell.stories.v1.CommentDeleted') ORDER BY id",
    );
    const messages = rows.map((row) => ({ key: published, value: row.payload }));
    await feed.kafka.send(feed.topic, messages);
    await feed.kafka.send(feed.topic, messages);
    // Once the consumer has handled both deliveries, the counts must show each event once.
    await eventually(() => feed.kafka.consumed(feed.topic), { timeoutMs: 20_000, what: 'the consumer to handle both deliveries' });
    const story = (await h.client.getStory({ id: published }, caller({ appId: 'app' }))).story!;
    // Votes now: 402 none, 403 like, 404 like, 405 dislike; comments: three posted, two deleted.
    expect(story).toMatchObject({ numLikes: 2, numDislikes: 1, numComments: 1, rating: wilsonRating(2, 1)! });
    expect(story.hotness).toBeGreaterThan(before.hotness);
  });

  it('deletes a story with its comments, each announced', async () => {
    const comment = (await h.client.createComment({ storyId: published, content: 'Last words' }, reader('402'))).comment!;
    await h.client.deleteStory({ id: published }, writer);
    const { rows } = await h.pool.query<{ type: string }>("SELECT type FROM outbox WHERE key = $1 AND topic = 'stories.comment.v1' ORDER BY id", [comment.id]);
    expect(rows.map((row) => row.type)).toEqual(['inkwell.stories.v1.CommentCreated', 'inkwell.stories.v1.CommentDeleted']);
  });
});
