import type { Queryable } from '@inkwell/pg';
import { withPgErrors } from '@inkwell/pg';
import type { AuthoredContentChange } from '../domain/authored-content.js';

const COUNT_COLUMN = { story: 'num_stories', blog_post: 'num_blog_posts' } as const;

/** The authored_content copy and the two counts derived from it. */
export class AuthoredContentRepository {
  /** `db` is the consumer's transaction client, so the copy, the count and the processed event commit together. */
  constructor(private readonly db: Queryable) {}

  /**
   * Records whether the item counts and recounts its author's column from the copy. Applying
   * the same change twice, or changes of different items in any order, gives the same count.
   */
  async apply(change: AuthoredContentChange): Promise<void> {
    return withPgErrors(async () => {
      if (change.counts) {
        await this.db.query(
          `INSERT INTO authored_content (kind, content_id, author_id) VALUES ($1, $2, $3)
           ON CONFLICT (kind, content_id) DO UPDATE SET author_id = EXCLUDED.author_id`,
          [change.kind, change.contentId, change.authorId],
        );
      } else {
        await this.db.query('DELETE FROM authored_content WHERE kind = $1 AND content_id = $2', [change.kind, change.contentId]);
      }
      const column = COUNT_COLUMN[change.kind];
      await this.db.query(
        `UPDATE users SET ${column} = (SELECT count(*) FROM authored_content WHERE author_id = $1 AND kind = $2) WHERE id = $1`,
        [change.authorId, change.kind],
      );
    });
  }
}
