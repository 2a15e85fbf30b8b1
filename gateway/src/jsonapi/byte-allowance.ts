import { approximateBytes } from '@inkwell/limits';

/**
 * The bytes one JSON:API document may still take (docs/api/foundation.md, "Byte budgets"):
 * primary data and included resources are counted as they arrive, and loaders stop asking for
 * more once it is used up. A document over its allowance is answered with fewer items instead.
 */
export class ByteAllowance {
  #remaining: number;

  constructor(bytes: number) {
    this.#remaining = bytes;
  }

  /** An allowance that never runs out (single resources: their includes are few). */
  static unlimited(): ByteAllowance {
    return new ByteAllowance(Number.POSITIVE_INFINITY);
  }

  /** Counts `values` against the allowance. */
  spend(values: unknown): void {
    this.#remaining -= approximateBytes(values);
  }

  /** True once more has been counted than was allowed. */
  get exhausted(): boolean {
    return this.#remaining < 0;
  }
}

/** One batch RPC's answer cut to its byte budget: the items and the ids it left for another call. */
export interface DeferringBatch<T> {
  readonly items: readonly T[];
  readonly deferredIds: readonly string[];
}

/**
 * Every item of `ids` through a batch RPC that answers within its own byte budget: asks again
 * for the ids an answer deferred, until none are left or `allowance` is used up (then the
 * document is too large anyway and will be answered with fewer primary items).
 */
export async function loadAllBatches<T>(ids: readonly string[], allowance: ByteAllowance, fetch: (ids: string[]) => Promise<DeferringBatch<T>>): Promise<T[]> {
  const items: T[] = [];
  let wanted = [...ids];
  while (wanted.length > 0 && !allowance.exhausted) {
    const answer = await fetch(wanted);
    allowance.spend(answer.items);
    items.push(...answer.items);
    // A service always answers for at least one id; anything else would loop forever.
    if (answer.deferredIds.length >= wanted.length) break;
    wanted = [...answer.deferredIds];
  }
  return items;
}
