import { AppError, ErrorCode } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import type { Redis } from '@inkwell/redis';
import { FixedWindowLimiter } from './fixed-window.limiter.js';

/** Reports one user may file per window (docs/api/safety.md, "Reports and moderation"). */
export const REPORT_LIMITS = { max: 20, windowMs: 60 * 60 * 1000 } as const;

/**
 * The per-reporter budget of POST /reports: a Redis fixed window per user (FixedWindowLimiter,
 * key `report:<user id>` under the API rate limits' prefix), counted before the report is filed,
 * on top of the API's request rate limit. Over it, 429 `rate_limited` with `Retry-After`. When
 * Redis cannot count, reports go through (fail open, as the API's rate limits), logged.
 */
export class ReportThrottle {
  readonly #limiter: FixedWindowLimiter;

  constructor(
    redis: Redis,
    keyPrefix: string,
    private readonly logger: Logger,
  ) {
    this.#limiter = new FixedWindowLimiter(redis, { windowMs: REPORT_LIMITS.windowMs, keyPrefix });
  }

  /** Counts one report of `userId`; throws RESOURCE_EXHAUSTED (`rate_limited`) over the budget. */
  async take(userId: string): Promise<void> {
    let window;
    try {
      window = await this.#limiter.hit(`report:${userId}`, REPORT_LIMITS.max);
    } catch (error) {
      this.logger.warn({ err: error }, 'report budget unknown: letting the report through');
      return;
    }
    if (window === undefined || !window.exceeded) return;
    const detail = `You have filed ${REPORT_LIMITS.max} reports in the last hour, the most: try again in ${window.resetSeconds} s.`;
    throw new AppError(ErrorCode.RESOURCE_EXHAUSTED, detail, { details: [{ reason: 'rate_limited', detail, retryAfterSeconds: window.resetSeconds }] });
  }
}
