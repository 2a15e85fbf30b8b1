import { AppError } from '@inkwell/errors';
import { renderMarkdown } from '@inkwell/markdown';
import { isUserId, visibleTo, type Viewer, type VisibleUser } from '../domain/user.js';
import { hashPassword } from '../domain/password.js';
import type { UserRepository } from '../repositories/user.repository.js';

/** What it takes to register an account. */
export interface Registration {
  name: string;
  email: string;
  password: string;
  bio?: string;
}

/** The rules about users: visibility of private fields, registration. */
export class UserService {
  constructor(private readonly users: UserRepository) {}

  /** The user `id` as `viewer` may see it; NOT_FOUND for unknown or malformed ids. */
  async getUser(id: string, viewer: Viewer): Promise<VisibleUser> {
    const user = isUserId(id) ? await this.users.findById(id) : undefined;
    if (!user) throw AppError.notFound('user');
    return visibleTo(user, viewer);
  }

  /**
   * Registers `registration` unless its name is taken, in which case the existing user is kept
   * and returned: used by the demo seed so that running it twice changes nothing.
   */
  async ensureUser(registration: Registration): Promise<VisibleUser> {
    const existing = await this.users.findByName(registration.name);
    if (existing) return visibleTo(existing, { scopes: [] });
    const bio = registration.bio ?? '';
    const created = await this.users.create({
      name: registration.name,
      email: registration.email,
      passwordHash: await hashPassword(registration.password),
      bio,
      bioHtml: renderMarkdown(bio),
    });
    return visibleTo(created, { scopes: [] });
  }
}
