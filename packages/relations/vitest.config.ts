import { sharedProject } from '../../vitest.shared.js';

export default sharedProject;
