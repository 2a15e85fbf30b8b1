import { describe, expect, it } from 'vitest';
import { counts, supersedes, type StoryState } from './known-story.js';

const at = (ms: number, deleted = false): StoryState => ({ storyId: '1', authorId: '1', published: true, deleted, version: new Date(ms) });

describe('supersedes', () => {
  it('lets a newer or equal version replace the stored state, never an older one', () => {
    expect(supersedes(at(2), at(1))).toBe(true);
    expect(supersedes(at(1), at(1))).toBe(true);
    expect(supersedes(at(1), at(2))).toBe(false);
  });

  it('never replaces a deletion', () => {
    expect(supersedes(at(9), at(1, true))).toBe(false);
  });
});

describe('counts', () => {
  it('is true for a published story that is not deleted, false for unknown ones', () => {
    expect(counts(at(1))).toBe(true);
    expect(counts(at(1, true))).toBe(false);
    expect(counts({ published: false, deleted: false })).toBe(false);
    expect(counts(undefined)).toBe(false);
  });
});
