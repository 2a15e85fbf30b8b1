import { describe, expect, it } from 'vitest';
import { EventEnvelopeSchema } from './events.js';
import { topicOfEvent, Topics, type EventPayloadCase } from './topics.js';

describe('topics', () => {
  it('names every topic <domain>.<entity>.v1, each once', () => {
    const names = Object.values(Topics);
    for (const name of names) expect(name).toMatch(/^[a-z]+\.[a-z]+\.v1$/);
    expect(new Set(names).size).toBe(names.length);
  });

  it('puts every envelope payload on a topic of the domain that defines the event', () => {
    const payload = EventEnvelopeSchema.oneofs.find((oneof) => oneof.name === 'payload');
    expect(payload?.fields.length).toBeGreaterThan(0);
    for (const field of payload?.fields ?? []) {
      const topic = topicOfEvent[field.localName as EventPayloadCase];
      expect(topic, field.name).toBeDefined();
      const domain = /^inkwell\.([a-z]+)\.v1\./.exec(field.message?.typeName ?? '')?.[1];
      expect(topic.split('.')[0], field.name).toBe(domain);
    }
    expect(Object.keys(topicOfEvent)).toHaveLength(payload?.fields.length ?? -1);
  });
});
