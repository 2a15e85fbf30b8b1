import type pg from 'pg';
import { withPgErrors } from '@inkwell/pg';
import type { Sort } from '../domain/list.js';
import type { Tag, TagKind } from '../domain/tag.js';

/** The sort fields of tag lists; `catalogue` is kind, then number (c:1, c:2, …, g:1, …). */
export type TagSortField = 'catalogue' | 'name' | 'num_stories';

interface TagRow {
  id: string;
  name: string;
  kind: TagKind;
  slug: string;
  num_stories: number;
  sort_key: string | null;
}

const COLUMNS = 'id, name, kind, slug, num_stories';

function toTag(row: TagRow): Tag {
  return { id: row.id, name: row.name, kind: row.kind, slug: row.slug, numStories: row.num_stories };
}

/** SQL access to the tag catalogue. */
export class TagRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The tags with these ids that exist, in the order of `ids` (duplicates once). */
  async findByIds(ids: readonly string[]): Promise<Tag[]> {
    if (ids.length === 0) return [];
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<TagRow>(`SELECT ${COLUMNS}, NULL AS sort_key FROM tags WHERE id = ANY($1::text[])`, [ids]);
      const byId = new Map(rows.map((row) => [row.id, toTag(row)]));
      return [...new Set(ids)].flatMap((id) => byId.get(id) ?? []);
    });
  }

  /**
   * One keyset page of the catalogue, of one kind or both, after the position (`key`: the sort
   * value as text, `id`: the tag id) of the previous page's last tag; reads `limit + 1` rows.
   */
  async list(options: { kind?: TagKind; sort: Sort<TagSortField>; limit: number; after?: { key: string | null; id: string } }): Promise<{ tags: Tag[]; next?: { key: string | null; id: string } }> {
    const values: unknown[] = [];
    const add = (value: unknown) => `$${values.push(value)}`;
    const where: string[] = [];
    if (options.kind) where.push(`kind = ${add(options.kind)}`);
    const dir = options.sort.direction === 'asc' ? 'ASC' : 'DESC';
    const cmp = options.sort.direction === 'asc' ? '>' : '<';
    let order: string;
    let key: string;
    switch (options.sort.field) {
      case 'name':
        order = `name ${dir}, id ${dir}`;
        key = 'name';
        if (options.after) where.push(`(name, id) ${cmp} (${add(options.after.key)}::text, ${add(options.after.id)}::text)`);
        break;
      case 'num_stories':
        order = `num_stories ${dir}, id ${dir}`;
        key = 'num_stories::text';
        if (options.after) where.push(`(num_stories, id) ${cmp} (${add(options.after.key)}::int, ${add(options.after.id)}::text)`);
        break;
      case 'catalogue':
        order = `kind ${dir}, number ${dir}`;
        key = 'NULL';
        if (options.after) {
          const [kindLetter, number] = options.after.id.split(':');
          where.push(`(kind, number) ${cmp} (${add(kindLetter === 'c' ? 'character' : 'genre')}::text, ${add(Number(number))}::int)`);
        }
        break;
    }
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<TagRow>(
        `SELECT ${COLUMNS}, ${key} AS sort_key FROM tags ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT ${add(options.limit + 1)}`,
        values,
      );
      const page = rows.slice(0, options.limit);
      const last = page.at(-1);
      return { tags: page.map(toTag), ...(rows.length > options.limit && last ? { next: { key: last.sort_key, id: last.id } } : {}) };
    });
  }
}
