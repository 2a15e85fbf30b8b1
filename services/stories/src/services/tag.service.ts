import { AppError } from '@inkwell/errors';
import { decodePosition, encodePosition, lookupIds, pageLimit, sortName, type Sort } from '../domain/list.js';
import type { Tag, TagKind } from '../domain/tag.js';
import type { TagRepository, TagSortField } from '../repositories/tag.repository.js';
import type { PageInput } from './story.service.js';

/** GET /tags. */
export interface ListTagsInput extends PageInput {
  kind?: TagKind;
  /** undefined: catalogue order (characters, then genres, by number). */
  sort?: Sort<'name' | 'num_stories'>;
}

/** The tag catalogue: lists and lookups. */
export class TagService {
  /**
   * `isTagId` recognises the tag-id syntax, whose owner is the proto's `tag_id` rule
   * (transport/tag-id.ts): requests are refused there; here it drops what cannot match.
   */
  constructor(
    private readonly tags: TagRepository,
    private readonly isTagId: (id: string) => boolean,
  ) {}

  /** One keyset page of the catalogue. */
  async listTags(input: ListTagsInput): Promise<{ tags: Tag[]; nextAfter: string }> {
    const limit = pageLimit(input.pageSize);
    const sort: Sort<TagSortField> = input.sort ?? { field: 'catalogue', direction: 'asc' };
    let after: { key: string | null; id: string } | undefined;
    if (input.after !== '') {
      const position = decodePosition(input.after, sortName(sort), this.isTagId);
      if (!position) throw AppError.badParameter('page[cursor]', 'The cursor does not belong to this list.', 'invalid_cursor');
      after = { key: position.key, id: position.id };
    }
    const page = await this.tags.list({ ...(input.kind ? { kind: input.kind } : {}), sort, limit, ...(after ? { after } : {}) });
    return { tags: page.tags, nextAfter: page.next ? encodePosition({ sort: sortName(sort), ...page.next }) : '' };
  }

  /** The tags among `ids` that exist, in their order. */
  async batchGetTags(ids: readonly string[]): Promise<Tag[]> {
    return this.tags.findByIds(lookupIds(ids, this.isTagId));
  }
}
