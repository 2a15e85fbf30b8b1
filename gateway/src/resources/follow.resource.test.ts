import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { FollowSchema } from '@inkwell/proto/users';
import { describe, expect, it } from 'vitest';
import { toFollowResource } from './follow.resource.js';

describe('toFollowResource', () => {
  it('maps a follow to a JSON:API resource with user linkage and no self link', () => {
    const follow = create(FollowSchema, { id: '9', followerId: '2', followedId: '3', dateFollowed: timestampFromDate(new Date('2026-11-21T19:00:00Z')) });
    expect(toFollowResource(follow)).toEqual({
      id: '9',
      type: 'follow',
      attributes: { date_followed: '2026-11-21T19:00:00Z' },
      relationships: { follower: { data: { type: 'user', id: '2' } }, followed: { data: { type: 'user', id: '3' } } },
    });
  });

  it('prints an unset date as null, never the epoch', () => {
    expect(toFollowResource(create(FollowSchema, { id: '1', followerId: '2', followedId: '3' })).attributes.date_followed).toBeNull();
  });
});
