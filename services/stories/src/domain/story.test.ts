import { describe, expect, it } from 'vitest';
import { inLockOrder } from './story.js';

describe('inLockOrder', () => {
  it('orders story ids as Postgres orders the bigint, each once', () => {
    expect(inLockOrder(['10', '9', '100', '9', '11', '2'])).toEqual(['2', '9', '10', '11', '100']);
    expect(inLockOrder(new Set(['9223372036854775807', '922337203685477580']))).toEqual(['922337203685477580', '9223372036854775807']);
  });
});
