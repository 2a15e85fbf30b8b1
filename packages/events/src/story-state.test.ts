import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { StorySnapshotSchema } from '@inkwell/proto/stories';
import { describe, expect, it } from 'vitest';
import { storyStateOf } from './story-state.js';

const occurredAt = new Date('2026-01-02T03:04:05.000Z');
const modified = new Date('2026-01-01T00:00:00.000Z');

function envelope(kind: 'storyCreated' | 'storyUpdated' | 'storyDeleted', snapshot: { storyId: string; dateModified?: Date }) {
  const story = create(StorySnapshotSchema, {
    storyId: snapshot.storyId,
    authorId: '7',
    published: true,
    ...(snapshot.dateModified ? { dateModified: timestampFromDate(snapshot.dateModified) } : {}),
  });
  return create(EventEnvelopeSchema, { eventId: 'e', key: snapshot.storyId, occurredAt: timestampFromDate(occurredAt), payload: { case: kind, value: { story } } });
}

describe('storyStateOf', () => {
  it('reads the snapshot of created, updated and deleted stories, versioned by date_modified', () => {
    expect(storyStateOf(envelope('storyUpdated', { storyId: '5', dateModified: modified }))).toEqual({ storyId: '5', authorId: '7', published: true, deleted: false, version: modified });
    expect(storyStateOf(envelope('storyDeleted', { storyId: '5', dateModified: modified }))?.deleted).toBe(true);
  });

  it('versions a snapshot without date_modified by the time the event occurred', () => {
    expect(storyStateOf(envelope('storyCreated', { storyId: '5' }))?.version).toEqual(occurredAt);
  });

  it('ignores the other events of the topic and snapshots without a story', () => {
    expect(storyStateOf(create(EventEnvelopeSchema, { eventId: 'e', key: '5', payload: { case: 'storyViewed', value: { storyId: '5', chapterId: '1' } } }))).toBeUndefined();
    expect(storyStateOf(envelope('storyUpdated', { storyId: '0' }))).toBeUndefined();
  });
});
