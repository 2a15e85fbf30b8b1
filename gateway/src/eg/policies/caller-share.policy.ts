import type { EgPolicy } from '../eg.types.js';
import { sendJsonApi } from '../../http/api-response.js';
import { requestState } from '../../http/request-state.js';
import { errorDocument } from '../../jsonapi/error.mapping.js';
import type { CallerGate } from '../../ratelimit/caller-gate.js';

/**
 * Each caller's share of this gateway process (docs/api/auth.md, "Rate limits"): after the rate
 * limit counted the request, it waits for a turn in its caller's line (the same principal as the
 * rate-limit window) and holds it until its answer is done; the answer's bytes (Content-Length)
 * are then paid for in time before the caller's next request starts. A caller whose line is full is
 * answered `429 rate_limited` with `Retry-After: 1`; a request whose client left while waiting is
 * dropped without an answer.
 */
export function createCallerSharePolicy(gate: CallerGate): EgPolicy {
  return {
    name: 'caller-share',
    schema: { $id: 'https://inkwell.dev/schemas/policies/caller-share.json', type: 'object', properties: {} },
    policy: () => (req, res, next) => {
      const caller = requestState(req).rateKey;
      if (caller === '') {
        next();
        return;
      }
      const gone = new AbortController();
      let turn = false;
      // Only a request still waiting for its turn needs to hear that its client left (an abort
      // builds a DOMException: not worth it for the answered requests that close every time).
      res.once('close', () => {
        if (!turn) gone.abort();
      });
      // A turn may come in a later tick: anything the pipeline throws from there is passed on
      // with next(error), as express does for what a policy throws synchronously.
      void gate.enter(caller, gone.signal).then((release) => {
        if (release === undefined) {
          if (gone.signal.aborted) return;
          sendJsonApi(res, 429, errorDocument('rate_limited', 'Too many of your requests are waiting for an answer; retry in 1 s.'), { 'Retry-After': '1' });
          return;
        }
        // Answered or closed already (a close that came before this policy ran is never heard).
        if (gone.signal.aborted || res.writableEnded || res.destroyed) {
          release(0);
          return;
        }
        turn = true;
        res.once('close', () => release(Number(res.getHeader('content-length')) || 0));
        try {
          next();
        } catch (error) {
          next(error);
        }
      });
    },
  };
}
