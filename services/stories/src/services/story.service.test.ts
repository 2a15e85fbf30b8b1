import { closeMarkdown } from '@inkwell/markdown';
import { afterAll, describe, expect, it } from 'vitest';
import { FIRST_PAGE as firstPage, memoryStories, viewers } from '../testing/memory.repositories.js';

const { author, reader, app: anonymous } = viewers;
const noFilter = { ids: [], tagIds: [] };

afterAll(closeMarkdown);

describe('StoryService visibility', () => {
  it('shows a published story to everyone and a draft to its author only (404 for others)', async () => {
    const { data, stories } = memoryStories();
    const published = data.putStory('900', { published: true });
    const draft = data.putStory('900');

    expect((await stories.getStory(published, anonymous)).id).toBe(published);
    expect((await stories.getStory(draft, author)).id).toBe(draft);
    await expect(stories.getStory(draft, reader)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(stories.getStory('not-an-id', author)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists the draft chapters of a story to its author only', async () => {
    const { data, stories } = memoryStories();
    const id = data.putStory('900', { published: true });
    const shown = data.putChapter(id);
    const hidden = data.putChapter(id, { published: false });

    expect((await stories.getStory(id, author)).chapterIds).toEqual([shown, hidden]);
    expect((await stories.getStory(id, reader)).chapterIds).toEqual([shown]);
  });

  it('leaves other users’ drafts out of a batch, keeping the order asked for', async () => {
    const { data, stories } = memoryStories();
    const mine = data.putStory('901');
    const theirs = data.putStory('900');
    const published = data.putStory('900', { published: true });

    const page = await stories.batchGetStories([published, theirs, mine, '12345'], reader);
    expect(page.items.map((story) => story.id)).toEqual([published, mine]);
  });
});

describe('StoryService lists', () => {
  it('lists published stories only on GET /stories', async () => {
    const { data, stories } = memoryStories();
    const published = data.putStory('900', { published: true });
    data.putStory('900');

    const page = await stories.listStories({ ...firstPage, query: '', filter: noFilter }, author);
    expect(page.stories.map((story) => story.id)).toEqual([published]);
    expect(page.total).toEqual({ value: 1, lowerBound: false });
  });

  it('refuses relevance without a query and date_added without a bookshelf (invalid_sort)', async () => {
    const { stories } = memoryStories();
    await expect(stories.listStories({ ...firstPage, query: '', filter: noFilter, sort: { field: 'relevance', direction: 'desc' } }, reader)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ reason: 'invalid_sort', parameter: 'sort' }],
    });
    await expect(stories.listStories({ ...firstPage, query: '', filter: noFilter, sort: { field: 'date_added', direction: 'desc' } }, reader)).rejects.toMatchObject({
      details: [{ reason: 'invalid_sort', parameter: 'sort' }],
    });
  });

  it('shows an author’s drafts on their own list, never on another’s; published=false of another is empty', async () => {
    const { data, stories } = memoryStories();
    const published = data.putStory('900', { published: true });
    const draft = data.putStory('900');

    const own = await stories.listUserStories({ ...firstPage, userId: '900' }, author);
    expect(own.stories.map((story) => story.id).sort()).toEqual([published, draft].sort());
    const seen = await stories.listUserStories({ ...firstPage, userId: '900' }, reader);
    expect(seen.stories.map((story) => story.id)).toEqual([published]);
    expect((await stories.listUserStories({ ...firstPage, userId: '900', published: false }, author)).stories.map((story) => story.id)).toEqual([draft]);
    expect(await stories.listUserStories({ ...firstPage, userId: '900', published: false }, reader)).toEqual({ stories: [], nextAfter: '' });
  });

  it('lists drafts last under the default sort of a user list', async () => {
    const { data, stories } = memoryStories();
    const draft = data.putStory('900');
    const older = data.putStory('900', { published: true, datePublished: new Date('2026-01-01') });
    const newer = data.putStory('900', { published: true, datePublished: new Date('2026-02-01') });

    const page = await stories.listUserStories({ ...firstPage, userId: '900' }, author);
    expect(page.stories.map((story) => story.id)).toEqual([newer, older, draft]);
  });

  it('sorts by date_updated with stories never updated last both ways, and filters GET /stories by it inclusively', async () => {
    const { data, stories } = memoryStories();
    const never = data.putStory('900');
    const early = data.putStory('900', { published: true, dateUpdated: new Date('2026-03-01T00:00:00Z') });
    const late = data.putStory('900', { published: true, dateUpdated: new Date('2026-03-09T12:00:00Z') });
    const user = (direction: 'asc' | 'desc') => stories.listUserStories({ ...firstPage, userId: '900', sort: { field: 'date_updated', direction } }, author);
    expect((await user('desc')).stories.map((story) => story.id)).toEqual([late, early, never]);
    expect((await user('asc')).stories.map((story) => story.id)).toEqual([early, late, never]);

    const updated = (dateUpdatedMin?: Date, dateUpdatedMax?: Date) =>
      stories.listStories({ ...firstPage, query: '', filter: { ...noFilter, dateUpdatedMin, dateUpdatedMax }, sort: { field: 'date_updated', direction: 'desc' } }, reader);
    expect((await updated(new Date('2026-03-09T12:00:00Z'))).stories.map((story) => story.id)).toEqual([late]);
    expect((await updated(undefined, new Date('2026-03-09T11:59:59Z'))).stories.map((story) => story.id)).toEqual([early]);
    expect((await updated(new Date('2026-03-01T00:00:00Z'), new Date('2026-03-09T12:00:00Z'))).stories.map((story) => story.id)).toEqual([late, early]);
  });

  it('pages a user list without gaps or repeats', async () => {
    const { data, stories } = memoryStories();
    const ids = [1, 2, 3, 4, 5].map((day) => data.putStory('900', { published: true, datePublished: new Date(Date.UTC(2026, 0, day)) }));

    const first = await stories.listUserStories({ userId: '900', pageSize: 2, after: '' }, reader);
    const second = await stories.listUserStories({ userId: '900', pageSize: 2, after: first.nextAfter }, reader);
    const third = await stories.listUserStories({ userId: '900', pageSize: 2, after: second.nextAfter }, reader);
    expect([...first.stories, ...second.stories, ...third.stories].map((story) => story.id)).toEqual([...ids].reverse());
    expect(third.nextAfter).toBe('');
  });

  it('refuses a cursor made for another sort (invalid_cursor)', async () => {
    const { data, stories } = memoryStories();
    data.putStory('900', { published: true });
    data.putStory('900', { published: true });
    const page = await stories.listUserStories({ userId: '900', pageSize: 1, after: '' }, reader);

    await expect(stories.listUserStories({ userId: '900', pageSize: 1, after: page.nextAfter, sort: { field: 'hotness', direction: 'desc' } }, reader)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ reason: 'invalid_cursor', parameter: 'page[cursor]' }],
    });
  });
});

describe('StoryService bookshelf filter', () => {
  function shelfWorld() {
    const world = memoryStories();
    const { data } = world;
    const onShelf = data.putStory('900', { published: true });
    const read = data.putStory('900', { published: true });
    data.putStory('900', { published: true });
    data.shelves.set('70', { ownerId: '901', private: true });
    data.shelves.set('71', { ownerId: '901', private: false });
    for (const shelf of ['70', '71']) {
      data.shelfItems.push({ id: data.nextId(), bookshelfId: shelf, storyId: onShelf, read: false, dateAdded: new Date('2026-03-01') });
      data.shelfItems.push({ id: data.nextId(), bookshelfId: shelf, storyId: read, read: true, dateAdded: new Date('2026-03-02') });
    }
    return { ...world, onShelf, read };
  }

  it('matches nothing for another user’s private shelf, exactly like a missing one', async () => {
    const { stories } = shelfWorld();
    const hidden = await stories.listStories({ ...firstPage, query: '', filter: { ...noFilter, bookshelfId: '70' } }, author);
    const missing = await stories.listStories({ ...firstPage, query: '', filter: { ...noFilter, bookshelfId: '79' } }, author);
    expect(hidden).toEqual({ stories: [], nextAfter: '' });
    expect(missing).toEqual(hidden);
  });

  it('shows a public shelf to anyone and a private one to its owner, newest addition first under date_added', async () => {
    const { stories, onShelf, read } = shelfWorld();
    const sort = { field: 'date_added', direction: 'desc' } as const;
    const own = await stories.listStories({ ...firstPage, query: '', sort, filter: { ...noFilter, bookshelfId: '70' } }, reader);
    expect(own.stories.map((story) => story.id)).toEqual([read, onShelf]);
    expect(own.total).toBeUndefined();
    const shared = await stories.listStories({ ...firstPage, query: '', sort, filter: { ...noFilter, bookshelfId: '71' } }, anonymous);
    expect(shared.stories.map((story) => story.id)).toEqual([read, onShelf]);
  });

  it('keeps unread items with filter[unread] on one’s own shelf, and refuses it on anyone else’s or without a shelf', async () => {
    const { stories, onShelf } = shelfWorld();
    const unread = await stories.listStories({ ...firstPage, query: '', filter: { ...noFilter, bookshelfId: '70', unread: true } }, reader);
    expect(unread.stories.map((story) => story.id)).toEqual([onShelf]);

    const refused = { code: 'INVALID_ARGUMENT', details: [{ reason: 'unread_requires_owned_bookshelf', parameter: 'filter[unread]' }] };
    await expect(stories.listStories({ ...firstPage, query: '', filter: { ...noFilter, bookshelfId: '71', unread: true } }, author)).rejects.toMatchObject(refused);
    await expect(stories.listStories({ ...firstPage, query: '', filter: { ...noFilter, unread: true } }, reader)).rejects.toMatchObject(refused);
  });

  it('refuses tag counts together with a bookshelf', async () => {
    const { stories } = shelfWorld();
    await expect(stories.listStories({ ...firstPage, query: '', countTags: true, filter: { ...noFilter, bookshelfId: '71' } }, reader)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ parameter: 'facets' }],
    });
  });
});

describe('StoryService writes', () => {
  it('creates a draft by the caller with the default status and rating, title trimmed, description rendered', async () => {
    const { stories } = memoryStories();
    const story = await stories.createStory({ title: '  The Gate  ', shortDescription: '', description: 'A *gate*.', published: false, tagIds: [] }, author);
    expect(story).toMatchObject({ authorId: '900', title: 'The Gate', published: false, status: 'incomplete', contentRating: 'everyone', datePublished: null });
    expect(story.descriptionHtml).toContain('<em>gate</em>');
  });

  it('refuses unknown tags on the tags relationship, and keeps each tag once', async () => {
    const { data, stories } = memoryStories();
    data.tags.set('g:1', { id: 'g:1', name: 'Adventure', kind: 'genre', slug: 'adventure', numStories: 0 });

    await expect(stories.createStory({ title: 'T', shortDescription: '', description: '', published: false, tagIds: ['g:1', 'g:2'] }, author)).rejects.toMatchObject({
      message: 'Unknown tag: g:2.',
      details: [{ reason: 'validation_failed', pointer: '/data/relationships/tags' }],
    });
    expect((await stories.createStory({ title: 'T', shortDescription: '', description: '', published: false, tagIds: ['g:1', 'g:1'] }, author)).tagIds).toEqual(['g:1']);
  });

  it('publishes only with a published chapter, sets date_published once and keeps it over unpublishing', async () => {
    let now = new Date('2026-05-01T00:00:00Z');
    const { data, stories } = memoryStories(() => now);
    const id = data.putStory('900');
    data.putChapter(id, { published: false });

    await expect(stories.updateStory(id, { published: true }, author)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: [{ reason: 'validation_failed', pointer: '/data/attributes/published' }],
    });
    data.putChapter(id);
    const published = await stories.updateStory(id, { published: true }, author);
    expect(published).toMatchObject({ published: true, datePublished: now });
    expect(published.hotness).toBeGreaterThan(0);

    now = new Date('2026-05-02T00:00:00Z');
    expect(await stories.updateStory(id, { published: false }, author)).toMatchObject({ published: false, datePublished: new Date('2026-05-01T00:00:00Z') });
    now = new Date('2026-05-03T00:00:00Z');
    expect(await stories.updateStory(id, { published: true }, author)).toMatchObject({ published: true, datePublished: new Date('2026-05-01T00:00:00Z') });
  });

  it('changes only the fields sent; an empty change leaves even date_modified as it was', async () => {
    const { data, stories } = memoryStories(() => new Date('2026-06-01T00:00:00Z'));
    const id = data.putStory('900', { title: 'Old', status: 'incomplete', dateModified: new Date('2026-01-01T00:00:00Z') });

    const untouched = await stories.updateStory(id, {}, author);
    expect(untouched.dateModified).toEqual(new Date('2026-01-01T00:00:00Z'));
    const changed = await stories.updateStory(id, { status: 'complete' }, author);
    expect(changed).toMatchObject({ title: 'Old', status: 'complete', dateModified: new Date('2026-06-01T00:00:00Z') });
  });

  it('lets only the author write: 403 on another’s published story, 404 on another’s draft', async () => {
    const { data, stories } = memoryStories();
    const published = data.putStory('900', { published: true });
    const draft = data.putStory('900');

    await expect(stories.updateStory(published, { title: 'Mine now' }, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(stories.updateStory(draft, { title: 'Mine now' }, reader)).rejects.toMatchObject({ code: 'NOT_FOUND', details: [{ reason: 'not_found' }] });
    await expect(stories.updateStory(published, { description: 'rendered only for the author' }, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(stories.deleteStory(published, reader)).rejects.toMatchObject({ code: 'PERMISSION_DENIED', details: [{ reason: 'forbidden' }] });
    await expect(stories.deleteStory(draft, reader)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(data.read(published, null)?.title).toBe(`Story ${published}`);
  });

  it('deletes a story with its chapters for its author', async () => {
    const { data, stories } = memoryStories();
    const id = data.putStory('900', { published: true });
    data.putChapter(id);

    await stories.deleteStory(id, author);
    await expect(stories.getStory(id, author)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(data.chaptersOf(id)).toEqual([]);
  });
});
