import type pg from 'pg';
import { AppError, ErrorCode } from '@inkwell/errors';
import { ITEM_OVERHEAD_BYTES } from '@inkwell/limits';
import { budgetedPage, budgetedPageSql, type BudgetedRow, constraintName, translatePgError, withPgErrors, withTransaction } from '@inkwell/pg';
import { appendEvent } from '@inkwell/events';
import type { User } from '../domain/user.js';
import { userCreated, userUpdated } from '../events/user.events.js';

/** A user row as stored, before the domain shapes it. */
interface UserRow {
  id: string;
  name: string;
  email: string;
  bio: string;
  bio_html: string;
  num_followers: number;
  num_following: number;
  num_stories: number;
  num_blog_posts: number;
  date_joined: Date;
}

/** Everything needed to create an account; the password arrives already hashed. */
export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  bio: string;
  bioHtml: string;
}

/** A profile change; absent fields stay as they are. */
export interface UserChanges {
  email?: string;
  bio?: { text: string; html: string };
}

/** A user together with the stored password hash, for sign-in only. */
export interface UserCredentials {
  user: User;
  passwordHash: string;
}

/** How a lookup by id or name treats suspended accounts. */
export interface AccountLookup {
  /** Find a suspended account too (default: it is nobody). */
  readonly includeSuspended?: boolean;
}

const COLUMNS = 'id, name, email, bio, bio_html, num_followers, num_following, num_stories, num_blog_posts, date_joined';

/** The unique indexes of users, and the attribute each one is about. */
const UNIQUE_FIELDS: Readonly<Record<string, 'name' | 'email'>> = { users_name_key: 'name', users_email_key: 'email' };

function toUser(row: UserRow): User {
  return {
    id: String(row.id),
    name: row.name,
    email: row.email,
    bio: row.bio,
    bioHtml: row.bio_html,
    numFollowers: row.num_followers,
    numFollowing: row.num_following,
    numStories: row.num_stories,
    numBlogPosts: row.num_blog_posts,
    dateJoined: row.date_joined,
  };
}

/** A taken name or e-mail as ALREADY_EXISTS naming the attribute; anything else translated as usual. */
function translateUserError(error: unknown): AppError {
  const field = UNIQUE_FIELDS[constraintName(error) ?? ''];
  if (field === undefined) return translatePgError(error);
  return new AppError(ErrorCode.ALREADY_EXISTS, `This ${field === 'name' ? 'name' : 'e-mail address'} is already taken.`, {
    cause: error,
    details: [{ reason: 'conflict', pointer: `/data/attributes/${field}`, detail: `This ${field === 'name' ? 'name' : 'e-mail address'} is already taken.` }],
  });
}

/** What most rules need of the users: whether one exists (UserRepository, or a memory store in unit tests). */
export type UserLookup = Pick<UserRepository, 'findById'>;

/** SQL access to the `users` table of the users schema. */
export class UserRepository {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * The user with this id, or undefined. A suspended account is nobody (docs/api/safety.md,
   * "Suspended accounts") unless `includeSuspended` (the operator CLI).
   */
  async findById(id: string, { includeSuspended = false }: AccountLookup = {}): Promise<User | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1 AND (suspended_at IS NULL OR $2)`, [id, includeSuspended]);
      return rows[0] && toUser(rows[0]);
    });
  }

  /**
   * The users with these (unique) ids, in their order, from the first as far as `budgetBytes`
   * of bio text allows (docs/api/foundation.md, "Byte budgets"); unknown ids and suspended
   * accounts are left out.
   * `covered` is how many of `ids` the answer accounts for.
   */
  async findByIds(ids: readonly string[], budgetBytes: number): Promise<{ users: User[]; covered: number }> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<UserRow & BudgetedRow & { ord: string }>(
        budgetedPageSql(`SELECT ${COLUMNS}, w.ord FROM unnest($1::bigint[]) WITH ORDINALITY AS w(wanted, ord) JOIN users ON users.id = w.wanted AND users.suspended_at IS NULL`, {
          bytes: `octet_length(bio) + octet_length(bio_html) + ${ITEM_OVERHEAD_BYTES}`,
          order: 'ord',
          budgetParam: '$2',
        }),
        [ids, budgetBytes],
      );
      const page = budgetedPage(rows, rows.length);
      return { users: page.rows.map(toUser), covered: page.more ? Number(rows.at(-1)!.ord) : ids.length };
    });
  }

  /** The user with this name (case-insensitive), or undefined; suspended accounts as in findById. */
  async findByName(name: string, { includeSuspended = false }: AccountLookup = {}): Promise<User | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE lower(name) = lower($1) AND (suspended_at IS NULL OR $2)`, [name, includeSuspended]);
      return rows[0] && toUser(rows[0]);
    });
  }

  /**
   * The user whose name or e-mail address is `login` (case-insensitive) with their password
   * hash, or undefined. Names cannot contain "@", so a login matches at most one user. A
   * suspended account has none: it cannot sign in (docs/api/safety.md, "Reports and moderation").
   */
  async findCredentials(login: string): Promise<UserCredentials | undefined> {
    return withPgErrors(async () => {
      const { rows } = await this.pool.query<UserRow & { password_hash: string }>(
        `SELECT ${COLUMNS}, password_hash FROM users WHERE (lower(name) = lower($1) OR lower(email) = lower($1)) AND suspended_at IS NULL LIMIT 1`,
        [login],
      );
      const row = rows[0];
      return row && { user: toUser(row), passwordHash: row.password_hash };
    });
  }

  /**
   * Creates a user and, in the same transaction, the `UserCreated` event. A taken name or
   * e-mail address is ALREADY_EXISTS with a `conflict` detail pointing at the attribute.
   */
  async create(user: NewUser): Promise<User> {
    try {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<UserRow>(
          `INSERT INTO users (name, email, password_hash, bio, bio_html) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
          [user.name, user.email, user.passwordHash, user.bio, user.bioHtml],
        );
        const created = toUser(rows[0]!);
        await appendEvent(client, { key: created.id, payload: userCreated(created) });
        return created;
      });
    } catch (error) {
      throw translateUserError(error);
    }
  }

  /**
   * Applies `changes` to user `id` and writes `UserUpdated` in the same transaction. Undefined
   * when there is no such user; a taken e-mail address is ALREADY_EXISTS. Nothing is stored once
   * `signal` has aborted (checked right before COMMIT).
   */
  async update(id: string, changes: UserChanges, signal?: AbortSignal): Promise<User | undefined> {
    try {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<UserRow>(
          `UPDATE users SET email = coalesce($2, email), bio = coalesce($3, bio), bio_html = coalesce($4, bio_html), date_modified = now()
           WHERE id = $1 RETURNING ${COLUMNS}`,
          [id, changes.email ?? null, changes.bio?.text ?? null, changes.bio?.html ?? null],
        );
        const row = rows[0];
        if (!row) return undefined;
        const updated = toUser(row);
        await appendEvent(client, { key: updated.id, payload: userUpdated(updated) });
        return updated;
      }, { signal });
    } catch (error) {
      throw translateUserError(error);
    }
  }
}
