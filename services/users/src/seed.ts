import type { Logger } from '@inkwell/logging';
import type { UserService } from './services/user.service.js';

/** The demo accounts of `npm run dev`; their password is printed by the dev script. */
export const DEMO_PASSWORD = 'inkwell-demo-password';

const DEMO_USERS = [
  { name: 'ada', email: 'ada@example.org', bio: 'Writes **long** space operas, one chapter a week.' },
  { name: 'brontë', email: 'bronte@example.org', bio: 'Moors, mysteries and the occasional ghost.' },
  { name: 'cervantes', email: 'cervantes@example.org', bio: '' },
] as const;

/** Creates the demo users unless they exist; running it twice changes nothing. */
export async function seedDemoUsers(users: UserService, logger: Logger): Promise<void> {
  for (const user of DEMO_USERS) {
    const seeded = await users.ensureUser({ ...user, password: DEMO_PASSWORD });
    logger.info({ userId: seeded.id, name: seeded.name }, 'demo user ready');
  }
}
