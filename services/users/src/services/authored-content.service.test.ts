import { describe, expect, it } from 'vitest';
import type { AuthoredContentChange } from '../domain/authored-content.js';
import { AuthoredContentService } from './authored-content.service.js';

/** A store that records what it was asked to apply. */
function recordingStore(): { applied: AuthoredContentChange[]; apply(change: AuthoredContentChange): Promise<void> } {
  const applied: AuthoredContentChange[] = [];
  return { applied, apply: async (change) => void applied.push(change) };
}

describe('AuthoredContentService', () => {
  it('counts a user’s stories and blog posts, and nothing for site posts, which have no author', async () => {
    const store = recordingStore();
    const content = new AuthoredContentService(store);
    const story: AuthoredContentChange = { kind: 'story', contentId: '5', authorId: '10', counts: true };

    await content.record(story);
    await content.record({ kind: 'blog_post', contentId: '6', authorId: '', counts: true });
    await content.record({ kind: 'blog_post', contentId: '7', authorId: '0', counts: true });
    expect(store.applied).toEqual([story]);
  });
});
