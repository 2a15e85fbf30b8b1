import type { MessageInitShape } from '@bufbuild/protobuf';
import type { CallerContext } from '@inkwell/grpc';
import { StorySortField, type ListStoriesRequestSchema } from '@inkwell/proto/stories';
import type { StoryFixture } from './factories.js';
import type { StoriesHarness } from './harness.js';

/** A story made by makeStory. */
export type Fixture = StoryFixture & { id: string };

/** A ListStories request. */
export type ListRequest = MessageInitShape<typeof ListStoriesRequestSchema>;

/** A deterministic PRNG, so a failure reproduces. */
export function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** The value-column sorts of GET /stories and the fixture field each sorts by. */
export const SORTS: [StorySortField, keyof Fixture][] = [
  [StorySortField.DATE_PUBLISHED, 'datePublished'],
  [StorySortField.HOTNESS, 'hotness'],
  [StorySortField.DATE_MODIFIED, 'dateModified'],
  [StorySortField.RATING, 'rating'],
  [StorySortField.NUM_WORDS, 'numWords'],
  [StorySortField.NUM_VIEWS, 'numViews'],
  [StorySortField.NUM_COMMENTS, 'numComments'],
  [StorySortField.NUM_LIKES, 'numLikes'],
  [StorySortField.NUM_DISLIKES, 'numDislikes'],
  [StorySortField.DATE_UPDATED, 'dateUpdated'],
];

function valueOf(story: Fixture, key: keyof Fixture): number | null {
  const value = story[key];
  if (value === null) return null;
  if (value instanceof Date) return value.getTime();
  return Number(value);
}

/** The order of docs/api/lists.md, "Sorting": by value, nulls last both ways, ties by id in the same direction. */
export function ordered(stories: Fixture[], key: keyof Fixture, direction: 'asc' | 'desc'): string[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...stories]
    .sort((a, b) => {
      const x = valueOf(a, key);
      const y = valueOf(b, key);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) return sign * (x - y);
      return sign * (Number(a.id) - Number(b.id));
    })
    .map((story) => story.id);
}

/**
 * Every story id of a list, following next_after with random page sizes (1..7) drawn from
 * `random`; fails when the list does not end within 500 pages.
 */
export async function listAll(h: StoriesHarness, request: ListRequest, as: () => { caller: CallerContext }, random: () => number): Promise<string[]> {
  const ids: string[] = [];
  let after = '';
  for (let pages = 0; pages < 500; pages++) {
    const page = await h.client.listStories({ ...request, pageSize: 1 + Math.floor(random() * 7), after }, as());
    ids.push(...page.stories.map((story) => story.id));
    if (page.nextAfter === '') return ids;
    after = page.nextAfter;
  }
  throw new Error('the list did not end');
}
