import type { ServerResponse } from 'node:http';
import { AppError, ErrorCode } from '@inkwell/errors';
import type { Logger } from '@inkwell/logging';
import { sendApiError } from '../http/api-response.js';
import type { GatewayRequest } from '../http/request-state.js';
import type { EgApp } from './eg.types.js';

/** Called when no route or pipeline answered a request, or when one passed an error on. */
export type FinalHandler = (error: unknown, req: GatewayRequest, res: ServerResponse) => void;

/**
 * The last word on every request express-gateway does not answer: no match → JSON:API 404
 * `not_found`; an error express raised itself with a 4xx status (e.g. an undecodable URL) →
 * 400 `invalid_parameter`; any other error → 500 `internal`, logged. It replaces express's
 * finalhandler, which answers HTML and, outside NODE_ENV=production, the stack trace.
 */
export function createFinalHandler(logger: Logger): FinalHandler {
  const notFound = new AppError(ErrorCode.NOT_FOUND, 'There is no such resource. The API lives under /api/v1.', { details: [{ reason: 'not_found' }] });
  return (error, req, res) => {
    if (error === undefined || error === null) {
      sendApiError(req, res, notFound, logger);
      return;
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      sendApiError(req, res, new AppError(ErrorCode.INVALID_ARGUMENT, 'The request could not be understood.', { cause: error, details: [{ reason: 'invalid_parameter' }] }), logger);
      return;
    }
    sendApiError(req, res, error, logger);
  };
}

/**
 * Makes `final` the fallback of express-gateway's express app: the app calls `app.handle`
 * for every request, and express only uses its own finalhandler when no callback is given.
 */
export function installFinalHandler(app: EgApp, final: FinalHandler): void {
  const handle = app.handle.bind(app);
  app.handle = (req, res, callback) => handle(req, res, callback ?? ((error?: unknown) => final(error, req, res)));
}
