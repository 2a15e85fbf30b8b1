import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

/** A write that waits until the test lets it finish, recording each group it was given. */
function gatedWriter() {
  const groups: number[][] = [];
  const gates: Array<() => void> = [];
  let failNext: Error | undefined;
  const write = (items: number[]) => {
    groups.push(items);
    const failure = failNext;
    failNext = undefined;
    return new Promise<void>((resolve, reject) => gates.push(() => (failure ? reject(failure) : resolve())));
  };
  return {
    groups,
    write,
    finishOne: () => gates.shift()?.(),
    failNextWith: (error: Error) => {
      failNext = error;
    },
  };
}

describe('GroupCommit', () => {
  it('writes the first item alone and those added meanwhile together, then resolves each', async () => {
    const writer = gatedWriter();
    const commit = new GroupCommit(writer.write);
    const first = commit.add(1);
    const later = [commit.add(2), commit.add(3), commit.add(4)];
    expect(writer.groups).toEqual([[1]]);
    writer.finishOne();
    await first;
    await expect.poll(() => writer.groups).toEqual([[1], [2, 3, 4]]);
    writer.finishOne();
    await Promise.all(later);
  });

  it('rejects every item of a group whose write failed, and writes the next group', async () => {
    const writer = gatedWriter();
    const commit = new GroupCommit(writer.write, 2);
    writer.failNextWith(new Error('database unavailable'));
    const failed = commit.add(1);
    const next = [commit.add(2), commit.add(3), commit.add(4)];
    writer.finishOne();
    await expect(failed).rejects.toThrow('database unavailable');
    await expect.poll(() => writer.groups).toEqual([[1], [2, 3]]);
    writer.finishOne();
    await expect.poll(() => writer.groups).toEqual([[1], [2, 3], [4]]);
    writer.finishOne();
    await Promise.all(next);
  });
});
