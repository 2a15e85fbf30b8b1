import type pg from 'pg';
import { translatePgError, withTransaction } from '@inkwell/pg';
import { appendEvent } from '@inkwell/events';
import { Topics } from '@inkwell/proto/topics';
import type { User } from '../domain/user.js';
import { userCreated } from '../events/user.events.js';

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

const COLUMNS = 'id, name, email, bio, bio_html, num_followers, num_following, num_stories, num_blog_posts, date_joined';

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

/** SQL access to the `users` table of the users schema. */
export class UserRepository {
  constructor(private readonly pool: pg.Pool) {}

  /** The user with this id, or undefined. */
  async findById(id: string): Promise<User | undefined> {
    try {
      const { rows } = await this.pool.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
      return rows[0] && toUser(rows[0]);
    } catch (error) {
      throw translatePgError(error);
    }
  }

  /** The user with this name (case-insensitive), or undefined. */
  async findByName(name: string): Promise<User | undefined> {
    try {
      const { rows } = await this.pool.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE lower(name) = lower($1)`, [name]);
      return rows[0] && toUser(rows[0]);
    } catch (error) {
      throw translatePgError(error);
    }
  }

  /**
   * Creates a user and, in the same transaction, the `UserCreated` event. A taken name or
   * e-mail address is ALREADY_EXISTS.
   */
  async create(user: NewUser): Promise<User> {
    try {
      return await withTransaction(this.pool, async (client) => {
        const { rows } = await client.query<UserRow>(
          `INSERT INTO users (name, email, password_hash, bio, bio_html) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
          [user.name, user.email, user.passwordHash, user.bio, user.bioHtml],
        );
        const created = toUser(rows[0]!);
        await appendEvent(client, { topic: Topics.usersUser, key: created.id, payload: userCreated(created) });
        return created;
      });
    } catch (error) {
      throw translatePgError(error);
    }
  }
}
