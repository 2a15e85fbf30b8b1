import { describe, expect, it } from 'vitest';
import { afterVote } from './engagement.js';

describe('afterVote', () => {
  const totals = { likes: 3, dislikes: 1, comments: 0 };

  it('counts a new vote, a changed vote and a withdrawn vote', () => {
    expect(afterVote(totals, 'like', undefined)).toMatchObject({ likes: 4, dislikes: 1 });
    expect(afterVote(totals, 'dislike', 'like')).toMatchObject({ likes: 2, dislikes: 2 });
    expect(afterVote(totals, undefined, 'dislike')).toMatchObject({ likes: 3, dislikes: 0 });
    expect(afterVote(totals, 'like', 'like')).toEqual(totals);
  });

  it('never goes below zero', () => {
    expect(afterVote({ likes: 0, dislikes: 0, comments: 0 }, undefined, 'like')).toMatchObject({ likes: 0, dislikes: 0 });
  });
});
