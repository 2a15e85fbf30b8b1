// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';

const drivers = ['pg', 'kafkajs', 'ioredis', '@grpc/grpc-js', '@opensearch-project/opensearch', '@inkwell/pg', '@inkwell/events', '@inkwell/redis', '@inkwell/grpc'];
const driverPatterns = [{ group: ['@inkwell/proto', '@inkwell/proto/*', '@bufbuild/*'], message: 'Proto messages belong to transport mappers.' }];

/** Layering of a service (style.md): transport | consumers → services → repositories → drivers. */
export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/src/gen/**', '**/.cache/**', '**/.stack/**', '**/coverage/**', 'gateway/config/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX },
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-duplicates': 'error',
      'import-x/first': 'error',
      'import-x/no-self-import': 'error',
      'import-x/no-useless-path-segments': 'error',
      'no-restricted-syntax': ['error', { selector: "CallExpression[callee.property.name=/^(only|skip|todo)$/][callee.object.name=/^(it|test|describe)$/]", message: 'Focused, skipped or todo tests hide behaviour from CI.' }],
    },
  },
  {
    files: ['services/*/src/services/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: drivers.map((name) => ({ name, message: 'Services hold the rules; drivers belong to repositories and transport.' })),
        patterns: [...driverPatterns, { group: ['**/transport/**', '**/consumers/**'], message: 'Dependencies point one way: transport → services.' }],
      }],
    },
  },
  {
    files: ['services/*/src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: drivers.map((name) => ({ name, message: 'domain/ imports nothing.' })),
        patterns: [...driverPatterns, { group: ['**/transport/**', '**/consumers/**', '**/services/**', '**/repositories/**'], message: 'domain/ imports nothing.' }],
      }],
    },
  },
  {
    files: ['services/*/src/repositories/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        // Repositories write outbox events, so they may build proto event payloads (see src/events/).
        patterns: [{ group: ['**/transport/**', '**/consumers/**', '**/services/**'], message: 'Repositories sit below services.' }],
      }],
    },
  },
  {
    files: ['**/*.test.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
