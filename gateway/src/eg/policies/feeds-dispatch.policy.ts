import type { Logger } from '@inkwell/logging';
import type { FeedResponder } from '../../feeds/feed.responder.js';
import { sendPage, layout, html } from '../../authserver/pages/html.js';
import type { EgPolicy } from '../eg.types.js';

/**
 * The last policy of the feeds pipeline (docs/api/updates.md, "Atom feeds"): after bearer-auth chose
 * the request's rate-limit window (a feed needs no token: without one, the client address's),
 * rate-limit counted it and caller-share gave it its turn, `respond` answers it. It never calls
 * `next`; whatever escapes the responder is a 500 page, logged.
 */
export function createFeedsDispatchPolicy(respond: FeedResponder, logger: Logger): EgPolicy {
  return {
    name: 'feeds-dispatch',
    schema: { $id: 'https://inkwell.dev/schemas/policies/feeds-dispatch.json', type: 'object', properties: {} },
    policy: () => (req, res) => {
      respond(req, res).catch((error: unknown) => {
        logger.error({ err: error }, 'feed failed');
        sendPage(res, 500, layout('Server error', html`<p>The feed could not be built.</p>`));
      });
    },
  };
}
