import { defineProject, mergeConfig } from 'vitest/config';
import { sharedProject } from '../vitest.shared.js';

/** The manifest and image-recipe checks of `npm test`; the image runs (test/images) are opt-in: vitest.images.config.ts. */
export default mergeConfig(sharedProject, defineProject({ test: { exclude: ['**/node_modules/**', 'test/images/**'] } }));
