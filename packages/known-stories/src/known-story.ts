import type { StoryState } from '@inkwell/events';

export type { StoryState };

/** True when `incoming` may replace `stored` (see StoryState.version; deletion is final). */
export function supersedes(incoming: StoryState, stored: StoryState): boolean {
  return !stored.deleted && incoming.version.getTime() >= stored.version.getTime();
}

/** True when a story is shown to everyone: published and not deleted (undefined: unknown). */
export function counts(state: Pick<StoryState, 'published' | 'deleted'> | undefined): boolean {
  return state !== undefined && state.published && !state.deleted;
}
