/**
 * Writes items in groups (group commit): an item added while no write is running is written at
 * once, alone; items added while one runs wait and are written together by the next, at most
 * `maxItems` at a time. So a write costs one statement however many attempts ended meanwhile,
 * and nothing waits longer than one write. Each `add` resolves once its group was written, and
 * rejects with the group's error.
 */
export class GroupCommit<T> {
  readonly #queue: Array<{ item: T; resolve: () => void; reject: (error: unknown) => void }> = [];
  #writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly maxItems = 200,
  ) {}

  /** Queues `item`; resolves when it has been written. */
  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#queue.length > 0) {
      const group = this.#queue.splice(0, this.maxItems);
      try {
        await this.write(group.map((entry) => entry.item));
        for (const entry of group) entry.resolve();
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
    }
    this.#writing = false;
  }
}
