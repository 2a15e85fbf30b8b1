import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import { EventEnvelopeSchema } from './events.js';
import { RatingValue, StoryCreatedSchema, StoryRatedSchema, StorySchema, StoryStatus } from './stories.js';
import { UserSchema } from './users.js';

const roundTrip = <Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): MessageShape<Desc> =>
  fromBinary(schema, toBinary(schema, message));

describe('EventEnvelope', () => {
  it('round-trips an envelope with its payload through the binary format', () => {
    const occurredAt = timestampFromDate(new Date('2026-11-21T19:00:00.123Z'));
    const envelope = create(EventEnvelopeSchema, {
      eventId: '5b6f8a0e-3c1d-4e2f-9a7b-1c2d3e4f5a6b',
      type: StoryRatedSchema.typeName,
      occurredAt,
      key: '42',
      payload: {
        case: 'storyRated',
        value: create(StoryRatedSchema, {
          storyId: '42',
          userId: '7',
          value: RatingValue.LIKE,
          previousValue: RatingValue.DISLIKE,
        }),
      },
    });

    const decoded = roundTrip(EventEnvelopeSchema, envelope);

    expect(decoded.eventId).toBe(envelope.eventId);
    expect(decoded.type).toBe('inkwell.stories.v1.StoryRated');
    expect(decoded.key).toBe('42');
    expect(decoded.occurredAt?.seconds).toBe(occurredAt.seconds);
    expect(decoded.occurredAt?.nanos).toBe(123_000_000);
    expect(decoded.payload.case).toBe('storyRated');
    if (decoded.payload.case !== 'storyRated') throw new Error('wrong payload case');
    expect(decoded.payload.value.storyId).toBe('42');
    expect(decoded.payload.value.userId).toBe('7');
    expect(decoded.payload.value.value).toBe(RatingValue.LIKE);
    expect(decoded.payload.value.previousValue).toBe(RatingValue.DISLIKE);
  });

  it('keeps int64 ids as exact strings, beyond the range of a JS number', () => {
    // 2^53 + 1: a number would silently become 9007199254740992.
    const bigId = '9007199254740993';
    const envelope = create(EventEnvelopeSchema, {
      key: bigId,
      payload: {
        case: 'storyCreated',
        value: { story: { storyId: bigId, authorId: '3' } },
      },
    });

    const decoded = roundTrip(EventEnvelopeSchema, envelope);

    if (decoded.payload.case !== 'storyCreated') throw new Error('wrong payload case');
    const storyId: unknown = decoded.payload.value.story?.storyId;
    expect(typeof storyId).toBe('string');
    expect(storyId).toBe(bigId);

    const story = roundTrip(StorySchema, create(StorySchema, { id: bigId, chapterIds: ['1', bigId] }));
    expect(story.id).toBe(bigId);
    expect(story.chapterIds).toEqual(['1', bigId]);
  });

  it('leaves an unset Timestamp unset instead of turning it into the epoch', () => {
    const created = create(StoryCreatedSchema, {
      story: { storyId: '1', status: StoryStatus.INCOMPLETE, dateModified: timestampFromDate(new Date(0)) },
    });

    const decoded = roundTrip(StoryCreatedSchema, created);

    expect(decoded.story?.datePublished).toBeUndefined();
    expect(decoded.story?.dateUpdated).toBeUndefined();
    // An explicitly set epoch is a value, and stays distinguishable from unset.
    expect(decoded.story?.dateModified).toBeDefined();
    expect(decoded.story?.dateModified?.seconds).toBe(0n);
  });

  it('tells an unset optional scalar from its zero value', () => {
    const noVotes = roundTrip(StorySchema, create(StorySchema, { id: '1' }));
    const zeroRating = roundTrip(StorySchema, create(StorySchema, { id: '1', rating: 0 }));
    const withoutEmail = roundTrip(UserSchema, create(UserSchema, { id: '1', name: 'ann' }));

    expect(noVotes.rating).toBeUndefined();
    expect(zeroRating.rating).toBe(0);
    expect(withoutEmail.email).toBeUndefined();
  });
});
