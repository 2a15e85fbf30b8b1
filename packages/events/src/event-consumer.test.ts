import { create, toBinary } from '@bufbuild/protobuf';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { describe, expect, it } from 'vitest';
import { decodeEnvelope } from './event-consumer.js';

const eventId = '0b9a4f7e-8a43-4b8e-9d36-2f7f1c1b5e10';

function encoded(init: Parameters<typeof create<typeof EventEnvelopeSchema>>[1]): Buffer {
  return Buffer.from(toBinary(EventEnvelopeSchema, create(EventEnvelopeSchema, init)));
}

describe('decodeEnvelope', () => {
  it('decodes an envelope with its payload', () => {
    const envelope = decodeEnvelope(encoded({ eventId, key: '5', payload: { case: 'storyViewed', value: { storyId: '5', chapterId: '1' } } }));
    expect(envelope?.eventId).toBe(eventId);
    expect(envelope?.payload.case).toBe('storyViewed');
  });

  it('refuses records a consumer cannot dedupe or read', () => {
    expect(decodeEnvelope(null)).toBeUndefined();
    expect(decodeEnvelope(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toBeUndefined();
    expect(decodeEnvelope(encoded({ eventId: 'not-a-uuid', key: '5' }))).toBeUndefined();
    expect(decodeEnvelope(Buffer.from('{"event_id":"json is not protobuf"}'))).toBeUndefined();
  });
});
