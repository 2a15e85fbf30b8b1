export { eventually, eventuallyValue, type EventuallyOptions } from './eventually.js';
export { stackEnv, repoRoot, type StackEnv } from './stack-env.js';
export { ensureDatabase, dropSchemas, withDatabase, provisionServiceRoles, LOCAL_ROLE_PASSWORD, type ServiceDatabaseUrls } from './database.js';
export { startProcess, freePort, type RunningProcess, type StartProcessOptions } from './processes.js';
export { startSystem, SERVICES, type RunningSystem, type SystemOptions } from './system.js';
export { KeyRing, ISSUERS } from './key-ring.js';
export { createTestUser, createAppToken, type TestUser, type TestUserOptions, type AppToken, type AppTokenOptions, type UsersTarget } from './test-users.js';
export { createTestTopics, type TestTopics } from './test-topics.js';
export { HOSTILE_MARKDOWN, MARKDOWN_REFUSAL_DETAIL, whileHostileMarkdownRenders } from './markdown.js';
