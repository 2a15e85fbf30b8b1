import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '@inkwell/testing';
import { app, startBlogHarness, type BlogHarness } from './harness.js';

const run = promisify(execFile);

describe('the blog operator CLI', () => {
  let h: BlogHarness;

  beforeAll(async () => {
    h = await startBlogHarness('inkwell_test_blog_cli');
  });

  afterAll(async () => {
    await h?.close();
  });

  function cli(args: string[]) {
    const root = repoRoot();
    return run(process.execPath, ['--conditions=@inkwell/source', '--import', 'tsx', join(root, 'services/blog/src/cli/main.ts'), ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: h.databaseUrl, LOG_LEVEL: 'warn' },
    });
  }

  it('create-site-post posts an authorless site post that lists and filters like any post', async () => {
    const { stdout } = await cli(['create-site-post', '--title', 'Spring update', '--content', 'New *features*.', '--tag', 'Announcement']);
    const printed = JSON.parse(stdout) as { id: string; site_post: boolean; site_post_tag: string };
    expect(printed).toMatchObject({ title: 'Spring update', site_post: true, site_post_tag: 'announcement' });

    const { blogPosts } = await h.client.listBlogPosts({ filter: { sitePost: true, sitePostTag: 'announcement' } }, app('a'));
    expect(blogPosts.map((p) => [p.id, p.authorId, p.intro])).toEqual([[printed.id, '0', 'New features.']]);
  });

  it('exits 2 with the usage on bad arguments, and 1 with the reason on invalid posts', async () => {
    await expect(cli(['create-site-post', '--content', 'x'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--title is required') });
    await expect(cli(['publish-everything'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Usage:') });
    await expect(cli(['create-site-post', '--title', ' ', '--content', 'x'])).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('needs a title') });
  });
});
