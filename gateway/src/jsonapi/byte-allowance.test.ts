import { describe, expect, it } from 'vitest';
import { ByteAllowance, loadAllBatches } from './byte-allowance.js';

/** A batch RPC over fixed items that answers at most `perCall` of them and defers the rest. */
function deferringBackend(perCall: number) {
  const calls: string[][] = [];
  const fetch = async (ids: string[]) => {
    calls.push(ids);
    return { items: ids.slice(0, perCall).map((id) => ({ id, text: 'x'.repeat(100) })), deferredIds: ids.slice(perCall) };
  };
  return { calls, fetch };
}

describe('loadAllBatches', () => {
  it('asks again for the ids an answer deferred until every item is loaded', async () => {
    const backend = deferringBackend(2);
    const items = await loadAllBatches(['1', '2', '3', '4', '5'], ByteAllowance.unlimited(), backend.fetch);
    expect(items.map((item) => item.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(backend.calls).toEqual([['1', '2', '3', '4', '5'], ['3', '4', '5'], ['5']]);
  });

  it('stops asking once the document allowance is used up', async () => {
    const backend = deferringBackend(1);
    const allowance = new ByteAllowance(250);
    const items = await loadAllBatches(['1', '2', '3', '4', '5'], allowance, backend.fetch);
    expect(allowance.exhausted).toBe(true);
    expect(items.map((item) => item.id)).toEqual(['1', '2', '3']);
  });

  it('never loops on an answer that makes no progress', async () => {
    const calls: string[][] = [];
    const items = await loadAllBatches(['1', '2'], ByteAllowance.unlimited(), async (ids) => {
      calls.push(ids);
      return { items: [], deferredIds: ids };
    });
    expect(items).toEqual([]);
    expect(calls).toHaveLength(1);
  });
});
