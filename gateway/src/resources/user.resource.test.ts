import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { UserSchema } from '@inkwell/proto/users';
import { describe, expect, it } from 'vitest';
import { createApiLinks } from '../jsonapi/api-links.js';
import { toUserResource } from './user.resource.js';

const links = createApiLinks('https://api.inkwell.example/');

describe('toUserResource', () => {
  it('maps every field to the snake_case JSON:API user with its canonical link', () => {
    const user = create(UserSchema, {
      id: '42',
      name: 'ada',
      bio: '**hi**',
      bioHtml: '<p><strong>hi</strong></p>',
      email: 'ada@example.org',
      numFollowers: 3,
      numFollowing: 4,
      numStories: 5,
      numBlogPosts: 6,
      dateJoined: timestampFromDate(new Date('2026-01-02T03:04:05Z')),
    });
    expect(toUserResource(user, links)).toEqual({
      id: '42',
      type: 'user',
      attributes: {
        name: 'ada',
        bio: '**hi**',
        bio_html: '<p><strong>hi</strong></p>',
        email: 'ada@example.org',
        num_followers: 3,
        num_following: 4,
        num_stories: 5,
        num_blog_posts: 6,
        date_joined: '2026-01-02T03:04:05Z',
      },
      links: { self: 'https://api.inkwell.example/api/v1/users/42' },
    });
  });

  it('leaves out an unset email and sends an unset date as null', () => {
    const resource = toUserResource(create(UserSchema, { id: '1', name: 'b' }), links);
    expect(resource.attributes).not.toHaveProperty('email');
    expect(resource.attributes.date_joined).toBeNull();
  });
});
