import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the scheduling priority of the calling thread alone to `nice` (Linux: a thread is a
 * task of its own, named by /proc/thread-self), so that a render worker yields the CPU to the
 * threads that answer requests (docs/api/foundation.md, "Markdown"). Does nothing where threads
 * cannot be told apart or the priority cannot be changed.
 */
export function lowerThreadPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // Not Linux, or not allowed: the thread keeps its priority.
  }
}
