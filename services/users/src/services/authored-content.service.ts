import type { AuthoredContentChange } from '../domain/authored-content.js';
import type { AuthoredContentRepository } from '../repositories/authored-content.repository.js';

/** Where the counted content of each author is kept: AuthoredContentRepository, or a memory store in unit tests. */
export type AuthoredContentStore = Pick<AuthoredContentRepository, 'apply'>;

/** Keeps num_stories and num_blog_posts exact from the stories' and the blog's events. */
export class AuthoredContentService {
  constructor(private readonly content: AuthoredContentStore) {}

  /** Applies one change; an item without an author (site posts) changes nothing. */
  async record(change: AuthoredContentChange): Promise<void> {
    if (change.authorId === '' || change.authorId === '0') return;
    await this.content.apply(change);
  }
}
