import { z } from 'zod';

/** A true/false variable: `true` or `1`, `false` or `0`, anything else a configuration error; give it its default with `.default(…)`. */
export const envFlag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
