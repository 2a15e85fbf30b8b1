import { create, toBinary, type MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Queryable } from '@inkwell/pg';
import { EventEnvelopeSchema } from '@inkwell/proto/events';
import { topicOfEvent } from '@inkwell/proto/topics';
import { randomUUID } from 'node:crypto';

type EnvelopePayloadInit = NonNullable<MessageInitShape<typeof EventEnvelopeSchema>['payload']>;

/**
 * One domain event as the envelope's oneof: `{ case: 'storyRated', value: {...} }`. The value may
 * be a message made with `create(...)` or a plain init object.
 */
export type EventPayloadInit = Extract<EnvelopePayloadInit, { case: string }>;

/** What `appendEvent` writes. */
export interface AppendEventInput {
  /** The Kafka record key: the id of the entity the event is about (see the event's proto comment). */
  key: string;
  payload: EventPayloadInit;
  /** Defaults to the event's own topic (`topicOfEvent`); tests pass throwaway topics. */
  topic?: string;
  /** Defaults to a random UUID. */
  eventId?: string;
  /** Defaults to now. */
  occurredAt?: Date;
}

/**
 * Writes a domain event into the outbox of the client's schema and returns its event id. Call it
 * with the client of the transaction that makes the change, so the change and its event commit
 * or roll back together; the OutboxRelay then publishes it. The client must come from a pool
 * created for the service's schema (the table is found through search_path). The row also
 * raises a NOTIFY on `<schema>_outbox`, delivered at commit, which wakes the relay at once.
 */
export async function appendEvent(client: Queryable, input: AppendEventInput): Promise<string> {
  const eventId = input.eventId ?? randomUUID();
  const envelope = create(EventEnvelopeSchema, {
    eventId,
    occurredAt: timestampFromDate(input.occurredAt ?? new Date()),
    key: input.key,
    payload: input.payload,
  });
  if (envelope.payload.case === undefined) throw new TypeError('appendEvent needs an event payload');
  envelope.type = envelope.payload.value.$typeName;
  const topic = input.topic ?? topicOfEvent[envelope.payload.case];
  await client.query(
    `INSERT INTO outbox (event_id, topic, key, type, payload) VALUES ($1, $2, $3, $4, $5)
     RETURNING pg_notify(current_schema() || '_outbox', '')`,
    [eventId, topic, input.key, envelope.type, Buffer.from(toBinary(EventEnvelopeSchema, envelope))],
  );
  return eventId;
}

/** The NOTIFY channel the relay of `schema` listens on; appendEvent raises it. */
export function outboxChannel(schema: string): string {
  return `${schema}_outbox`;
}
