import { fieldRules } from '@inkwell/proto/options';
import { EventTypeListSchema } from '@inkwell/proto/webhooks';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES } from '../domain/event-types.js';

describe('the event types of the contract', () => {
  it('are the ones the service delivers (docs/api/webhooks.md, "Event types"), in the same order', () => {
    const rules = fieldRules(EventTypeListSchema.field.eventTypes);
    const items = rules?.type.case === 'repeated' ? rules.type.value.items : undefined;
    const allowed = items?.type.case === 'string' ? items.type.value.in : undefined;
    expect(allowed).toEqual(EVENT_TYPE_NAMES);
    expect(rules?.type.case === 'repeated' ? Number(rules.type.value.maxItems) : 0).toBe(EVENT_TYPE_NAMES.length);
  });
});
