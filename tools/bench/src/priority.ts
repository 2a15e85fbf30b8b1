import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';

/**
 * Gives every thread of process `pid` the nice value `priority`. On Linux a nice value belongs to
 * a thread, not a process: setting only `pid` would leave a JVM's workers (all of its work) and
 * Node's GC and I/O threads at their old value. Threads started later inherit their creator's.
 * Where /proc does not list threads, the process alone.
 */
export function setPriorityOfAllThreads(pid: number, priority: number): void {
  const tasks = `/proc/${pid}/task`;
  const threads = existsSync(tasks) ? readdirSync(tasks).map(Number) : [pid];
  for (const thread of threads) {
    try {
      setPriority(thread, priority);
    } catch (error) {
      // A thread that ended since the listing is no failure; the process itself must take it.
      if (thread === pid) throw error;
    }
  }
}

/** Pid files of the servers `npm run stack` starts itself (tools/stack/up.sh): the Kafka broker and the OpenSearch node. */
const LOCAL_STACK_PID_FILES = ['.cache/kafka/kafka.pid', '.cache/opensearch/opensearch.pid'];

/**
 * The running servers of the local stack under `root` (the repository), so that a benchmark can
 * prioritise them with the system they serve; none when the stack runs elsewhere.
 */
export function localStackPids(root: string): number[] {
  return LOCAL_STACK_PID_FILES.flatMap((file) => {
    const path = join(root, file);
    if (!existsSync(path)) return [];
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && existsSync(`/proc/${pid}`) ? [pid] : [];
  });
}
