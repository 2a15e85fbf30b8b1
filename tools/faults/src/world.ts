import { SCOPE_NAMES } from '@inkwell/auth-tokens';
import { createTestUser, type RunningSystem } from '@inkwell/testing';
import { dataId, expectApi } from './api-client.js';

/** A user of the load with everything it owns: one published story with one chapter, one public shelf. */
export interface Actor {
  readonly id: string;
  readonly token: string;
  readonly storyId: string;
  readonly chapterId: string;
  readonly shelfId: string;
}

/** Words the stories' titles are made of, so that searches find something. */
export const WORDS = ['harbour', 'lantern', 'orchard', 'glacier', 'meadow', 'ember', 'tide', 'willow'] as const;

/**
 * Creates `count` users with every scope (real personal tokens), each with a published story of
 * one chapter and a public shelf, through the API as a client would.
 */
export async function createActors(system: RunningSystem, count: number): Promise<Actor[]> {
  const actors: Actor[] = [];
  for (let i = 0; i < count; i++) {
    const user = await createTestUser(system, { scopes: SCOPE_NAMES });
    const call = (method: string, path: string, body: unknown, status: number) => expectApi(system.apiUrl, { method, path, token: user.token, body }, status);
    const word = WORDS[i % WORDS.length]!;
    const story = dataId(await call('POST', '/stories', { data: { type: 'story', attributes: { title: `The ${word} ${i}`, short_description: `A story of the ${word}.` } } }, 201));
    if (story === undefined) throw new Error('POST /stories returned no id');
    const chapter = dataId(await call('POST', `/stories/${story}/chapters`, { data: { type: 'chapter', attributes: { title: 'One', content: `The ${word} shone over the water. `.repeat(20), published: true } } }, 201));
    if (chapter === undefined) throw new Error('POST /chapters returned no id');
    await call('PATCH', `/stories/${story}`, { data: { type: 'story', id: story, attributes: { published: true } } }, 200);
    const shelf = dataId(await call('POST', '/users/me/bookshelves', { data: { type: 'bookshelf', attributes: { name: `Shelf ${i}`, privacy: 'public' } } }, 201));
    if (shelf === undefined) throw new Error('POST /bookshelves returned no id');
    actors.push({ id: user.id, token: user.token, storyId: story, chapterId: chapter, shelfId: shelf });
  }
  return actors;
}
