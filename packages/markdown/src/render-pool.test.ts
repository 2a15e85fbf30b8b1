import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { ErrorCode } from '@inkwell/errors';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MAX_HTML_BYTES } from './render-protocol.js';
import { MarkdownLimitError, MarkdownRenderPool } from './render-pool.js';

const MiB = 1024 * 1024;
/** `unit` repeated to (just under) `bytes`. */
const fill = (unit: string, bytes = MiB) => unit.repeat(Math.floor(bytes / unit.length));
const longUrl = `https://example.org/${'a'.repeat(2000)}`;

/** Settles a render into what it gave: the HTML or the error. */
async function outcome(pending: Promise<string>): Promise<{ html: string } | { error: unknown }> {
  return pending.then((html) => ({ html }), (error: unknown) => ({ error }));
}

/** Hostile texts of at most 1 MiB (the API's largest text). */
const hostile: [string, string][] = [
  ['1 MiB of "!["', fill('![')],
  ['1 MiB of "["', fill('[')],
  ['1 MiB of "*a*"', fill('*a*')],
  ['1 MiB of "_a_ "', fill('_a_ ')],
  ['1 MiB of "<"', fill('<')],
  ['1 MiB of table rows', `| a | b |\n|---|---|\n${fill('| x | y |\n', MiB - 32)}`],
  ['1 MiB of empty table cells', `|a|\n|-|\n${fill('|\n', MiB - 16)}`],
  ['a 5000-column table', `|${'a|'.repeat(5000)}\n|${'-|'.repeat(5000)}\n${fill('x\n', MiB - 30_000)}`],
  ['1 MiB of nested ">"', `${fill('>', MiB - 2)} x`],
  ['1 MiB of nested list markers', fill('- ')],
  ['1000 indented list levels', Array.from({ length: 1000 }, (_, level) => `${' '.repeat(level * 2)}- x`).join('\n')],
  ['1 MiB of backticks', fill('`a')],
  ['1 MiB of linkified addresses', fill('www.a.com ')],
  ['1 MiB of autolinks', fill('<http://a>')],
  ['1 MiB of inline images', fill('![a](b)')],
  ['1 MiB of entities', fill('&#x1F600;')],
  ['60 000 reference definitions', `${Array.from({ length: 60_000 }, (_, i) => `[r${i}]: http://x.y/${i}`).join('\n')}\n\n${'[r1]'.repeat(100)}`],
];

describe('MarkdownRenderPool', () => {
  // Every hostile text at once, from the one caller of a process.
  const pool = new MarkdownRenderPool({ textsPerCaller: hostile.length });
  afterAll(() => pool.close());

  it.concurrent.each(hostile)('renders %s within the bounds or refuses it', async (_name, text) => {
    const result = await outcome(pool.render(text));
    if ('html' in result) expect(Buffer.byteLength(result.html)).toBeLessThanOrEqual(MAX_HTML_BYTES);
    else expect(result.error).toBeInstanceOf(MarkdownLimitError);
  }, 120_000);

  describe('stops reference expansion at the HTML bound', () => {
    // A generous deadline: these must be refused for their size, on any machine.
    const patient = new MarkdownRenderPool({ workers: 1, deadlineMs: 60_000 });
    afterAll(() => patient.close());

    it.each([
      ['a long link reference used 100 000 times', `[a]: ${longUrl}\n\n${'[a]'.repeat(100_000)}`],
      ['a long image reference used 75 000 times', `[a]: ${longUrl}\n\n${'![a]'.repeat(75_000)}`],
    ])('refuses %s', async (_name, text) => {
      await expect(patient.render(text)).rejects.toMatchObject({
        name: 'MarkdownLimitError',
        limit: 'too_large',
        message: `The Markdown renders to more than ${MAX_HTML_BYTES} bytes of HTML.`,
      });
    }, 120_000);

    it('renders 1 MiB of ordinary prose', async () => {
      const prose = fill('It was a dark and *stormy* night; "Hello," she said, and [left](https://example.org/page).\n\n');
      const html = await patient.render(prose);
      expect(html.startsWith('<p>It was a dark and <em>stormy</em> night; "Hello," she said')).toBe(true);
      expect(Buffer.byteLength(html)).toBeLessThanOrEqual(MAX_HTML_BYTES);
    }, 120_000);
  });

  it('keeps the event loop free while a worst-case text renders', async () => {
    const twoWorkers = new MarkdownRenderPool({ workers: 2 });
    try {
      await Promise.all([twoWorkers.render('warm'), twoWorkers.render('up')]);
      const events: string[] = [];
      const attack = outcome(twoWorkers.render(fill('_a_ '))).then((result) => {
        events.push('attack settled');
        return result;
      });
      const timer = new Promise<void>((resolve) => setTimeout(() => {
        events.push('timer fired');
        resolve();
      }, 1));
      const ordinary = twoWorkers.render('An *ordinary* comment.', { caller: 'user:reader' }).then((html) => {
        events.push('ordinary rendered');
        return html;
      });
      await Promise.all([timer, ordinary]);
      // Both happened while the attack was still rendering (or being refused).
      expect(events.toSorted()).toEqual(['ordinary rendered', 'timer fired']);
      expect(await ordinary).toBe('<p>An <em>ordinary</em> comment.</p>');
      const result = await attack;
      expect('error' in result && result.error).toBeInstanceOf(MarkdownLimitError);
    } finally {
      await twoWorkers.close();
    }
  }, 60_000);

  it('refuses a text past the deadline, replaces the worker and serves the next text', async () => {
    const hasty = new MarkdownRenderPool({ workers: 1, deadlineMs: 100 });
    try {
      await expect(hasty.render(fill('!['))).rejects.toMatchObject({
        name: 'MarkdownLimitError',
        limit: 'too_slow',
        message: 'The Markdown takes too long to render (more than 100 ms).',
      });
      await expect(hasty.render('still *here*')).resolves.toBe('<p>still <em>here</em></p>');
    } finally {
      await hasty.close();
    }
  }, 60_000);

  it('refuses a text that needs more than the worker memory and serves the next text', async () => {
    const small = new MarkdownRenderPool({ workers: 1, memoryMb: 64, deadlineMs: 60_000 });
    try {
      await expect(small.render(fill('*a*'))).rejects.toMatchObject({ name: 'MarkdownLimitError', limit: 'too_complex' });
      await expect(small.render('still *here*')).resolves.toBe('<p>still <em>here</em></p>');
    } finally {
      await small.close();
    }
  }, 120_000);

  it('refuses texts once closed', async () => {
    const closing = new MarkdownRenderPool();
    await closing.render('x');
    await closing.close();
    await expect(closing.render('x')).rejects.toThrow('closed');
  }, 60_000);

  it('does not keep a process alive once its renders are done', async () => {
    const script = `
      import { MarkdownRenderPool } from ${JSON.stringify(new URL('./render-pool.ts', import.meta.url).href)};
      const pool = new MarkdownRenderPool();
      console.log(await pool.render('*done*'));
    `;
    // The child must exit on its own: execFile's timeout would kill it, failing the test.
    const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', '--input-type=module', '--eval', script], { timeout: 30_000 });
    expect(stdout.trim()).toBe('<p><em>done</em></p>');
  }, 60_000);

  describe('queues per caller (docs/api/foundation.md, "Markdown")', () => {
    /** A valid text that keeps a worker busy for a while (about 0.2 s on a quiet machine). */
    const slow = fill('![', 64 * 1024);

    /** Renders `source` for `caller`, noting `label` in `done` when it settles. */
    const tracked = (target: MarkdownRenderPool, done: string[], label: string, source: string, caller: string) =>
      outcome(target.render(source, { caller })).then((result) => {
        done.push(label);
        return result;
      });

    it('renders a text of a caller who comes later before another caller\'s backlog of ten', async () => {
      const fair = new MarkdownRenderPool({ workers: 1, textsPerCaller: 10 });
      try {
        const done: string[] = [];
        const backlog = Array.from({ length: 10 }, (_, i) => tracked(fair, done, `a${i + 1}`, slow, 'user:a'));
        await vi.waitUntil(() => fair.stats().rendering === 1, { timeout: 30_000 });
        const other = tracked(fair, done, 'b', 'A *small* chapter.', 'user:b');
        expect(await other).toEqual({ html: '<p>A <em>small</em> chapter.</p>' });
        await Promise.all(backlog);
        // Only the text that was rendering when b came finished before b's.
        expect(done).toEqual(['a1', 'b', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9', 'a10']);
      } finally {
        await fair.close();
      }
    }, 60_000);

    it('keeps a worker free for other callers however many texts one caller sends', async () => {
      const shared = new MarkdownRenderPool({ workers: 2, textsPerCaller: 8 });
      try {
        // Both workers started and ready.
        await Promise.all([shared.render('warm', { caller: 'user:x' }), shared.render('up', { caller: 'user:y' })]);
        const done: string[] = [];
        const backlog = Array.from({ length: 6 }, (_, i) => tracked(shared, done, `a${i + 1}`, slow, 'user:a'));
        await vi.waitUntil(() => shared.stats().rendering === 1 && shared.stats().waiting === 5, { timeout: 30_000 });
        // Two workers, but one caller's texts hold only one of them: the other starts b's text at once.
        expect(shared.workersPerCaller).toBe(1);
        const other = tracked(shared, done, 'b', 'A *small* chapter.', 'user:b');
        expect(await other).toEqual({ html: '<p>A <em>small</em> chapter.</p>' });
        await Promise.all(backlog);
        // b did not even wait for the text of a that was rendering when it came.
        expect(done[0]).toBe('b');
      } finally {
        await shared.close();
      }
    }, 60_000);

    it('gives the worker that replaces a stopped one to the slow caller, never the worker left for others', async () => {
      const shared = new MarkdownRenderPool({ workers: 2, deadlineMs: 300, textsPerCaller: 8 });
      try {
        await Promise.all([shared.render('warm', { caller: 'user:x' }), shared.render('up', { caller: 'user:y' })]);
        const done: string[] = [];
        const tooSlow = fill('![');
        const backlog = ['a1', 'a2', 'a3'].map((label) => tracked(shared, done, label, tooSlow, 'user:a'));
        await vi.waitUntil(() => done.includes('a1'), { timeout: 30_000 });
        // a's first text was stopped; its next waits for the replacement worker, b's starts at once.
        await tracked(shared, done, 'b', 'A *small* chapter.', 'user:b');
        await Promise.all(backlog);
        expect(done.indexOf('b')).toBeLessThan(done.indexOf('a2'));
        expect(done.slice(0, 2)).toEqual(['a1', 'b']);
      } finally {
        await shared.close();
      }
    }, 60_000);

    it('lets callers with backlogs take turns', async () => {
      const fair = new MarkdownRenderPool({ workers: 1 });
      try {
        const done: string[] = [];
        await Promise.all([
          ...['a1', 'a2', 'a3'].map((label) => tracked(fair, done, label, label, 'user:a')),
          ...['c1', 'c2', 'c3'].map((label) => tracked(fair, done, label, label, 'app:c')),
        ]);
        expect(done).toEqual(['a1', 'c1', 'a2', 'c2', 'a3', 'c3']);
      } finally {
        await fair.close();
      }
    }, 60_000);

    it('refuses a caller past its bound at once, with a retry hint, and serves other callers', async () => {
      const bounded = new MarkdownRenderPool({ workers: 1, textsPerCaller: 3, deadlineMs: 2_500 });
      try {
        const settled: string[] = [];
        const held = [bounded.render(slow, { caller: 'user:a' }), bounded.render(slow, { caller: 'user:a' })].map((pending) => pending.finally(() => settled.push('held')));
        expect(bounded.held('user:a')).toBe(2);
        const refusal = {
          code: ErrorCode.RESOURCE_EXHAUSTED,
          details: [{ reason: 'rate_limited', retryAfterSeconds: 3, detail: 'Too many of your texts are waiting to be rendered (at most 3 at once): retry in 3 s.' }],
        };
        // Two more texts of one request would pass the bound of 3: both are refused, neither queued.
        const [first, second] = bounded.renderAll(['content', 'note'], { caller: 'user:a' });
        await expect(first).rejects.toMatchObject(refusal);
        await expect(second).rejects.toMatchObject(refusal);
        // Refused before either held text could have rendered (a worker answers on a later turn of the event loop).
        expect(settled).toEqual([]);
        expect(bounded.held('user:a')).toBe(2);
        await expect(bounded.render('*b*', { caller: 'user:b' })).resolves.toBe('<p><em>b</em></p>');
        await expect(bounded.render('*a*', { caller: 'user:a' })).resolves.toBe('<p><em>a</em></p>');
        await Promise.all(held);
        expect(bounded.held('user:a')).toBe(0);
        await expect(Promise.all(bounded.renderAll(['x', 'y', 'z'], { caller: 'user:a' }))).resolves.toEqual(['<p>x</p>', '<p>y</p>', '<p>z</p>']);
      } finally {
        await bounded.close();
      }
    }, 60_000);

    it('drops a waiting text whose signal aborts without ever starting it', async () => {
      const single = new MarkdownRenderPool({ workers: 1 });
      try {
        const busy = single.render(slow, { caller: 'user:a' });
        await vi.waitUntil(() => single.stats().rendering === 1, { timeout: 30_000 });
        const controller = new AbortController();
        const waiting = single.render('never *rendered*', { caller: 'user:b', signal: controller.signal });
        expect(single.stats()).toMatchObject({ waiting: 1, started: 1 });
        const reason = new Error('The deadline of the call passed.');
        controller.abort(reason);
        await expect(waiting).rejects.toBe(reason);
        expect(single.stats()).toMatchObject({ waiting: 0, started: 1 });
        expect(single.held('user:b')).toBe(0);
        await busy;
        expect(single.stats()).toEqual({ waiting: 0, rendering: 0, started: 1 });
        // A signal that has already aborted refuses at once.
        await expect(single.render('late', { signal: controller.signal })).rejects.toBe(reason);
        expect(single.stats().started).toBe(1);
      } finally {
        await single.close();
      }
    }, 60_000);

    it('terminates the worker of a rendering text whose signal aborts, and serves the next text', async () => {
      const patient = new MarkdownRenderPool({ workers: 1, deadlineMs: 60_000 });
      const terminate = vi.spyOn(Worker.prototype, 'terminate');
      try {
        const controller = new AbortController();
        const rendering = patient.render(fill('!['), { caller: 'user:a', signal: controller.signal });
        await vi.waitUntil(() => patient.stats().rendering === 1, { timeout: 30_000 });
        expect(terminate).not.toHaveBeenCalled();
        controller.abort(new Error('The client cancelled the call.'));
        await expect(rendering).rejects.toThrow('The client cancelled the call.');
        expect(terminate).toHaveBeenCalledTimes(1);
        expect(patient.stats()).toMatchObject({ waiting: 0, rendering: 0 });
        await expect(patient.render('still *here*', { caller: 'user:a' })).resolves.toBe('<p>still <em>here</em></p>');
      } finally {
        terminate.mockRestore();
        await patient.close();
      }
    }, 60_000);
  });
});
