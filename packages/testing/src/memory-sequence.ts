/**
 * Ids and times for the in-memory repositories of the services' unit tests (each service's
 * src/testing/memory.repositories.ts): ids are increasing numeric strings, as bigserial columns
 * give them, and every write happens strictly later than the one before, so that orders by time
 * never tie in a test by accident.
 */
export class MemorySequence {
  #lastId = 0;
  #lastTick = 0;

  /** A fresh id, greater than every earlier one. */
  nextId(): string {
    this.#lastId += 1;
    return String(this.#lastId);
  }

  /** The present, strictly later than any earlier answer. */
  now(): Date {
    this.#lastTick = Math.max(this.#lastTick + 1, Date.now());
    return new Date(this.#lastTick);
  }
}
