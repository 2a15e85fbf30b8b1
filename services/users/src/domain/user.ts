/** A user as the users service knows it; the password hash never leaves the repository. */
export interface User {
  id: string;
  name: string;
  email: string;
  bio: string;
  bioHtml: string;
  numFollowers: number;
  numFollowing: number;
  numStories: number;
  numBlogPosts: number;
  dateJoined: Date;
}

/** What a caller may see of a user: the e-mail only on their own record with read_user. */
export type VisibleUser = Omit<User, 'email'> & { email?: string };

/** Who is asking, as far as visibility rules care. */
export interface Viewer {
  userId?: string;
  scopes: readonly string[];
}

/** Applies the `user` row of docs/api/foundation.md, "Resource types": `email` is shown only to the user themself, and only with read_user. */
export function visibleTo(user: User, viewer: Viewer): VisibleUser {
  const { email, ...rest } = user;
  return viewer.userId === user.id && viewer.scopes.includes('read_user') ? { ...rest, email } : rest;
}

/** True when `id` is a positive integer that fits a Postgres bigint. */
export function isUserId(id: string): boolean {
  return /^[1-9][0-9]{0,18}$/.test(id) && BigInt(id) <= 9223372036854775807n;
}
