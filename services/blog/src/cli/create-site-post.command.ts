import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { create } from '@bufbuild/protobuf';
import { messageRefusal } from '@inkwell/grpc';
import { CreateBlogPostRequestSchema } from '@inkwell/proto/blog';
import type { BlogPost } from '../domain/blog-post.js';
import type { SitePostInput } from '../services/blog-post.service.js';

/** Usage text of the blog CLI. */
export const USAGE = `Usage: npm run cli:blog -- create-site-post --title <title> (--content <markdown> | --content-file <path>) [--tag <site post tag>]

Posts a site blog post (site_post: true, no author). Site posts cannot be edited or deleted
through the API. Prints the new post as JSON.`;

/** A command line that is not a valid create-site-post invocation. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * Reads the arguments of `create-site-post` into a site post. The content comes from
 * `--content` or from the file named by `--content-file` (UTF-8), exactly one of them.
 * Throws UsageError for unknown options, a missing title, or zero or two content sources, and
 * the AppError of CreateBlogPost for a title or content that breaks its rules (user posts' rules).
 */
export async function parseCreateSitePostArgs(args: readonly string[]): Promise<SitePostInput> {
  let values: { title?: string; content?: string; 'content-file'?: string; tag?: string };
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: { title: { type: 'string' }, content: { type: 'string' }, 'content-file': { type: 'string' }, tag: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.title === undefined) throw new UsageError('--title is required.');
  if ((values.content === undefined) === (values['content-file'] === undefined)) throw new UsageError('Give exactly one of --content and --content-file.');
  const content = values.content ?? (await readFile(values['content-file'] as string, 'utf8'));
  const refused = messageRefusal(CreateBlogPostRequestSchema, create(CreateBlogPostRequestSchema, { title: values.title, content }));
  if (refused !== undefined) throw refused;
  return { title: values.title, content, ...(values.tag === undefined ? {} : { tag: values.tag }) };
}

/** What the CLI prints about a created site post. */
export function describeSitePost(post: BlogPost): string {
  return JSON.stringify({ id: post.id, title: post.title, site_post: post.sitePost, site_post_tag: post.sitePostTag ?? null, date_posted: post.datePosted.toISOString() });
}
