import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { localStackPids, setPriorityOfAllThreads } from './priority.js';

/** The nice value of every thread of `pid` (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe.runIf(process.platform === 'linux')('setPriorityOfAllThreads', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => children.splice(0).forEach((child) => child.kill()));

  it('renices every thread of a process, not only its main thread', async () => {
    // A process with threads of its own (a worker, V8 and libuv threads) that says when it is up.
    const child = spawn(process.execPath, ['-e', "new (require('node:worker_threads').Worker)('setInterval(() => {}, 1000)', { eval: true }).on('online', () => console.log('up')); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const pid = child.pid!;
    expect(threadNiceValues(pid).length).toBeGreaterThan(2);

    setPriorityOfAllThreads(pid, 7);

    expect(new Set(threadNiceValues(pid))).toEqual(new Set([7]));
  });
});

describe('localStackPids', () => {
  it('lists the live broker and node of the pid files, and skips missing files and dead pids', () => {
    const root = mkdtempSync(join(tmpdir(), 'stack-'));
    mkdirSync(join(root, '.cache/kafka'), { recursive: true });
    mkdirSync(join(root, '.cache/opensearch'), { recursive: true });
    expect(localStackPids(root)).toEqual([]);

    writeFileSync(join(root, '.cache/kafka/kafka.pid'), `${process.pid}\n`);
    writeFileSync(join(root, '.cache/opensearch/opensearch.pid'), '999999999\n');
    expect(localStackPids(root)).toEqual([process.pid]);
  });
});
