import { author } from '../../stories/test/harness.js';
import type { BookshelvesHarness } from './harness.js';

/** Stories made through the real stories service of a harness, so they carry real events and versions. */
export function storyMaker(h: BookshelvesHarness) {
  return {
    /** A draft by `authorId`. */
    async draft(authorId: string, title = 'A draft'): Promise<string> {
      const { story } = await h.stories.client.createStory({ title }, author(authorId));
      return story!.id;
    },
    /** A published story by `authorId` (a draft with one published chapter, then published). */
    async published(authorId: string, title = 'A story'): Promise<string> {
      const { story } = await h.stories.client.createStory({ title }, author(authorId));
      await h.stories.client.createChapter({ storyId: story!.id, title: 'One', content: 'Some words.', published: true }, author(authorId));
      await h.stories.client.updateStory({ id: story!.id, published: true }, author(authorId));
      return story!.id;
    },
    /** Publishes or unpublishes story `id` as its author. */
    async setPublished(authorId: string, id: string, published: boolean): Promise<void> {
      await h.stories.client.updateStory({ id, published }, author(authorId));
    },
    async remove(authorId: string, id: string): Promise<void> {
      await h.stories.client.deleteStory({ id }, author(authorId));
    },
  };
}
