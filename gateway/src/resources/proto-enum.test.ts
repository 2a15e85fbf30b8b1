import { BookshelfPrivacy, BookshelfPrivacySchema } from '@inkwell/proto/bookshelves';
import { StorySortField, StorySortFieldSchema, StoryStatus, StoryStatusSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { protoEnumNames } from './proto-enum.js';

describe('protoEnumNames', () => {
  it('names every value but the zero one, in proto order, without the shared prefix', () => {
    const statuses = protoEnumNames(StoryStatusSchema, { separator: '-' });
    expect(statuses.names).toEqual(['complete', 'incomplete', 'on-hiatus', 'cancelled']);
    expect(statuses.toProto('on-hiatus')).toBe(StoryStatus.ON_HIATUS);
    expect(statuses.fromProto(StoryStatus.CANCELLED)).toBe('cancelled');
    expect(protoEnumNames(BookshelfPrivacySchema).names).toEqual(['public', 'private']);
  });

  it('maps "not sent" to UNSPECIFIED and UNSPECIFIED or an unknown number to null', () => {
    const privacy = protoEnumNames(BookshelfPrivacySchema);
    expect(privacy.toProto(undefined)).toBe(BookshelfPrivacy.UNSPECIFIED);
    expect(privacy.fromProto(BookshelfPrivacy.UNSPECIFIED)).toBeNull();
    expect(privacy.fromProto(99 as BookshelfPrivacy)).toBeNull();
    expect(() => privacy.toProto('secret')).toThrow(/no value for the API name "secret"/);
  });

  it('keeps the API order of an explicit selection and refuses a name the enum lacks', () => {
    const sort = protoEnumNames(StorySortFieldSchema, { names: ['num_likes', 'relevance'] });
    expect(sort.names).toEqual(['num_likes', 'relevance']);
    expect(sort.toProto('num_likes')).toBe(StorySortField.NUM_LIKES);
    expect(sort.fromProto(StorySortField.HOTNESS)).toBeNull();
    expect(() => protoEnumNames(StorySortFieldSchema, { names: ['popularity'] })).toThrow(/StorySortField has no value for the API name "popularity"/);
  });
});
