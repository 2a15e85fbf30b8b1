import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCreateSitePostArgs, UsageError } from './create-site-post.command.js';

describe('parseCreateSitePostArgs', () => {
  it('reads title, content and tag', async () => {
    expect(await parseCreateSitePostArgs(['--title', 'Hello', '--content', '**Hi**', '--tag', 'news'])).toEqual({ title: 'Hello', content: '**Hi**', tag: 'news' });
    expect(await parseCreateSitePostArgs(['--title=Hello', '--content=Hi'])).toEqual({ title: 'Hello', content: 'Hi' });
  });

  it('reads the content from a file', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'blog-cli-')), 'post.md');
    await writeFile(file, '# From a file\n');
    expect(await parseCreateSitePostArgs(['--title', 'T', '--content-file', file])).toEqual({ title: 'T', content: '# From a file\n' });
  });

  it('refuses a missing title, zero or two content sources, and unknown options', async () => {
    for (const args of [['--content', 'x'], ['--title', 'T'], ['--title', 'T', '--content', 'x', '--content-file', 'f'], ['--title', 'T', '--content', 'x', '--author', '1'], ['--title', 'T', '--content', 'x', 'extra']]) {
      await expect(parseCreateSitePostArgs(args)).rejects.toBeInstanceOf(UsageError);
    }
  });
});
