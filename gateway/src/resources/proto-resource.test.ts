import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { ChapterSchema, StorySchema, StoryStatus, StoryStatusSchema } from '@inkwell/proto/stories';
import { UserSchema } from '@inkwell/proto/users';
import { describe, expect, it } from 'vitest';
import { attributeTypes as at, defineResourceSchema } from '../jsonapi/index.js';
import { protoEnumNames } from './proto-enum.js';
import { optInAttributes, protoResourceMapper } from './proto-resource.js';

const STORY = defineResourceSchema({
  type: 'story',
  attributes: { title: at.string(), status: at.enumeration(['complete'], undefined, { nullable: true }), rating: at.integer(undefined, { nullable: true }), date_published: at.dateTime(undefined, { nullable: true }) },
  relationships: { author: { type: 'user', many: false }, tags: { type: 'tag', many: true } },
});

describe('protoResourceMapper', () => {
  const stories = protoResourceMapper(StorySchema, STORY, { enums: { status: protoEnumNames(StoryStatusSchema, { separator: '-' }) } });

  it('maps attributes and relationships 1:1 by name, enums by their API names, dates as API dates', () => {
    const story = create(StorySchema, { id: '7', title: 'Tea', status: StoryStatus.ON_HIATUS, rating: 80, authorId: '3', tagIds: ['c:1', 'g:2'], datePublished: timestampFromDate(new Date('2026-01-02T03:04:05Z')) });
    expect(stories.attributes(story)).toEqual({ title: 'Tea', status: 'on-hiatus', rating: 80, date_published: '2026-01-02T03:04:05Z' });
    expect(stories.relationships(story)).toEqual({ author: { data: { type: 'user', id: '3' } }, tags: { data: [{ type: 'tag', id: 'c:1' }, { type: 'tag', id: 'g:2' }] } });
  });

  it('answers an unset optional field with null where the type allows it, and leaves it out otherwise', () => {
    expect(stories.attributes(create(StorySchema, { title: 'Tea' }))).toEqual({ title: 'Tea', status: null, rating: null, date_published: null });
    const users = protoResourceMapper(UserSchema, defineResourceSchema({ type: 'user', attributes: { name: at.string(), email: at.string() } }));
    expect(users.attributes(create(UserSchema, { name: 'ada' }))).toEqual({ name: 'ada' });
    expect(users.attributes(create(UserSchema, { name: 'ada', email: 'ada@example.org' }))).toEqual({ name: 'ada', email: 'ada@example.org' });
  });

  it('refuses, at startup, a name the message has no field for', () => {
    expect(() => protoResourceMapper(StorySchema, defineResourceSchema({ type: 'story', attributes: { nonsense: at.string() } }))).toThrow(/inkwell\.stories\.v1\.Story has no field for the attribute story\.nonsense/);
    expect(() => protoResourceMapper(UserSchema, defineResourceSchema({ type: 'user', attributes: {}, relationships: { mentor: { type: 'user', many: false } } }))).toThrow(/no field for the relationship user\.mentor/);
  });

  it('finds the heavy attributes by their opt_in option', () => {
    expect(optInAttributes(ChapterSchema)).toEqual(['content', 'content_html']);
    expect(optInAttributes(StorySchema)).toEqual([]);
  });
});
