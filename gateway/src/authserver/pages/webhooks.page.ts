import type { ServerResponse } from 'node:http';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { ErrorCode, isAppError } from '@inkwell/errors';
import type { CallerContext, GrpcClient } from '@inkwell/grpc';
import type { OAuthClient, UsersService } from '@inkwell/proto/users';
import { DeliveryStatus, type WebhookDelivery, type WebhookEndpoint, type WebhookService } from '@inkwell/proto/webhooks';
import type { EgApp } from '../../eg/eg.types.js';
import type { GatewayRequest } from '../../http/request-state.js';
import { isId } from '../../jsonapi/proto-rules.js';
import { WEBHOOK_EVENT_TYPES } from '../../resources/webhook.resource.js';
import { CLIENT_ID_PATTERN } from '../../routing/route.types.js';
import { html, layout, sendPage, sendRedirect, type SafeHtml } from './html.js';
import { PageError, type PageContext, type SignedInSession } from './page-context.js';
import { DEFAULT_RETURN_TO, signInUrl } from './return-to.js';

/** The webhooks-service calls of the page. */
export type WebhooksPageClient = Pick<GrpcClient<typeof WebhookService>, 'listEndpoints' | 'createEndpoint' | 'deleteEndpoint' | 'rotateSecret' | 'listDeliveries' | 'redeliver'>;

/** What the webhooks page needs. */
export interface WebhooksPageDeps {
  readonly pages: PageContext;
  /** For the app's name: the signed-in user's apps. */
  readonly users: Pick<GrpcClient<typeof UsersService>, 'listClients'>;
  readonly webhooks: WebhooksPageClient;
}

/** The page of one app's webhook endpoints: `?client_id=<app>`, and `&endpoint_id=<id>` to see that endpoint's recent deliveries. */
export const WEBHOOKS_PAGE = '/developer/webhooks';

/** Deliveries the page shows of one endpoint (the newest); the API pages through the whole log. */
const RECENT_DELIVERIES = 20;

/** A secret just made, shown once. */
interface MadeSecret {
  readonly endpoint: WebhookEndpoint;
  readonly secret: string;
  readonly rotated: boolean;
}

/** What one rendering of the page shows besides the endpoints. */
interface PageExtras {
  readonly made?: MadeSecret;
  readonly errors?: readonly string[];
  readonly endpointId?: string;
}

/**
 * `/developer/webhooks?client_id=<app>`, for the signed-in owner of the app (others are sent to
 * sign in first; an app that is not theirs is 404): the app's webhook endpoints
 * (docs/api/webhooks.md, "Endpoints"), a form that adds one and shows its signing secret once,
 * and per endpoint a button that rotates the secret (the new one shown once; the previous one
 * keeps signing for 24 h), one that deletes it, and its recent deliveries with a button that
 * sends one again. Every form carries the session's CSRF token; the webhooks service is called as
 * the session's user with no app, which is the first party its RPCs require.
 */
export function registerWebhooksPage(app: EgApp, { pages, users, webhooks }: WebhooksPageDeps): void {
  const callerOf = (req: GatewayRequest, open: SignedInSession): CallerContext => pages.caller(req, open);

  const render = async (req: GatewayRequest, res: ServerResponse, open: SignedInSession, clientId: string, status: number, extras: PageExtras = {}): Promise<void> => {
    const caller = callerOf(req, open);
    const { clients } = await users.listClients({}, { caller });
    const client = clients.find((candidate) => candidate.id === clientId);
    if (client === undefined) throw missingApp();
    const { endpoints } = await webhooks.listEndpoints({ appId: clientId }, { caller });
    const shown = extras.endpointId === undefined ? undefined : endpoints.find((endpoint) => endpoint.id === extras.endpointId);
    const deliveries = shown === undefined ? [] : (await webhooks.listDeliveries({ appId: clientId, endpointId: shown.id, pageSize: RECENT_DELIVERIES }, { caller })).deliveries;
    sendPage(res, status, webhooksPage({ open, client, endpoints, shown, deliveries, ...extras }));
  };

  /** The signed-in session of a posted form and the app it names; throws PageError 403 (no session) or 404 (no such app id). */
  const postedForm = async (req: GatewayRequest): Promise<{ form: URLSearchParams; open: SignedInSession; clientId: string }> => {
    const { form, session } = await pages.verifiedForm(req);
    if (session.session.userId === undefined || session.session.userName === undefined) throw new PageError(403, 'Sign in first', 'Sign in to manage your applications.');
    const clientId = form.get('client_id') ?? '';
    if (!CLIENT_ID_PATTERN.test(clientId)) throw missingApp();
    return { form, open: session as SignedInSession, clientId };
  };

  /** The endpoint id of a posted form; throws PageError 404 when it is not an id. */
  const endpointIdOf = (form: URLSearchParams): string => {
    const id = form.get('endpoint_id') ?? '';
    if (!isId(id)) throw missingEndpoint();
    return id;
  };

  const pageUrl = (clientId: string, endpointId?: string): string =>
    `${WEBHOOKS_PAGE}?client_id=${encodeURIComponent(clientId)}${endpointId === undefined ? '' : `&endpoint_id=${encodeURIComponent(endpointId)}#deliveries`}`;

  app.get(
    WEBHOOKS_PAGE,
    pages.handle(WEBHOOKS_PAGE, async (req, res) => {
      const open = await pages.session(req);
      if (open?.session.userId === undefined || open.session.userName === undefined) return sendRedirect(res, signInUrl(DEFAULT_RETURN_TO));
      const query = new URL(req.url ?? '/', 'http://page.invalid').searchParams;
      const clientId = query.get('client_id') ?? '';
      if (!CLIENT_ID_PATTERN.test(clientId)) throw missingApp();
      const endpointId = query.get('endpoint_id') ?? '';
      await render(req, res, open as SignedInSession, clientId, 200, isId(endpointId) ? { endpointId } : {});
    }),
  );

  app.post(
    WEBHOOKS_PAGE,
    pages.handle(WEBHOOKS_PAGE, async (req, res) => {
      const { form, open, clientId } = await postedForm(req);
      const url = (form.get('url') ?? '').trim();
      const eventTypes = form.getAll('event');
      try {
        const { endpoint, secret } = await webhooks.createEndpoint({ appId: clientId, url, eventTypes: { eventTypes } }, { caller: callerOf(req, open) });
        if (endpoint === undefined) throw new Error('CreateEndpoint answered without an endpoint');
        await render(req, res, open, clientId, 201, { made: { endpoint, secret, rotated: false } });
      } catch (error) {
        const rejected = rejectedWrite(error);
        if (rejected === undefined) throw notFoundAs(error, missingApp());
        await render(req, res, open, clientId, rejected.status, { errors: rejected.problems });
      }
    }),
  );

  app.post(
    `${WEBHOOKS_PAGE}/rotate`,
    pages.handle(`${WEBHOOKS_PAGE}/rotate`, async (req, res) => {
      const { form, open, clientId } = await postedForm(req);
      const id = endpointIdOf(form);
      try {
        const { endpoint, secret } = await webhooks.rotateSecret({ appId: clientId, id }, { caller: callerOf(req, open) });
        if (endpoint === undefined) throw new Error('RotateSecret answered without an endpoint');
        await render(req, res, open, clientId, 200, { made: { endpoint, secret, rotated: true } });
      } catch (error) {
        throw notFoundAs(error, missingEndpoint());
      }
    }),
  );

  app.post(
    `${WEBHOOKS_PAGE}/delete`,
    pages.handle(`${WEBHOOKS_PAGE}/delete`, async (req, res) => {
      const { form, open, clientId } = await postedForm(req);
      const id = endpointIdOf(form);
      try {
        await webhooks.deleteEndpoint({ appId: clientId, id }, { caller: callerOf(req, open) });
      } catch (error) {
        throw notFoundAs(error, missingEndpoint());
      }
      sendRedirect(res, pageUrl(clientId));
    }),
  );

  app.post(
    `${WEBHOOKS_PAGE}/redeliver`,
    pages.handle(`${WEBHOOKS_PAGE}/redeliver`, async (req, res) => {
      const { form, open, clientId } = await postedForm(req);
      const endpointId = endpointIdOf(form);
      try {
        await webhooks.redeliver({ appId: clientId, endpointId, eventId: form.get('event_id') ?? '' }, { caller: callerOf(req, open) });
      } catch (error) {
        const rejected = rejectedWrite(error);
        if (rejected === undefined) throw notFoundAs(error, missingEndpoint());
        return render(req, res, open, clientId, rejected.status, { errors: rejected.problems, endpointId });
      }
      sendRedirect(res, pageUrl(clientId, endpointId));
    }),
  );
}

function missingApp(): PageError {
  return new PageError(404, 'No such application', 'There is no such application among yours.');
}

function missingEndpoint(): PageError {
  return new PageError(404, 'No such endpoint', 'There is no such webhook endpoint (or event) among those of your application.');
}

/** A NOT_FOUND of the webhooks service as the page's 404 `page`; any other error as it is. */
function notFoundAs(error: unknown, page: PageError): unknown {
  return isAppError(error) && error.code === ErrorCode.NOT_FOUND ? page : error;
}

/**
 * The problems of a refused write, with the page's status: 400 for invalid values (a URL that is
 * not https, no event type), 409 for a state that refuses it (the 11th endpoint, an inactive
 * endpoint); undefined for any other error.
 */
function rejectedWrite(error: unknown): { status: number; problems: string[] } | undefined {
  if (!isAppError(error) || (error.code !== ErrorCode.INVALID_ARGUMENT && error.code !== ErrorCode.FAILED_PRECONDITION)) return undefined;
  const problems = error.details.length === 0 ? [error.message] : error.details.map((detail) => detail.detail ?? error.message);
  return { status: error.code === ErrorCode.INVALID_ARGUMENT ? 400 : 409, problems };
}

function date(timestamp: Timestamp | undefined): string {
  return timestamp === undefined ? '' : timestampDate(timestamp).toISOString().replace('T', ' ').slice(0, 19) + ' UTC';
}

const STATUS_NAMES: Readonly<Record<number, string>> = { [DeliveryStatus.PENDING]: 'pending', [DeliveryStatus.SUCCEEDED]: 'succeeded', [DeliveryStatus.FAILED]: 'failed' };

function webhooksPage(view: {
  open: SignedInSession;
  client: OAuthClient;
  endpoints: readonly WebhookEndpoint[];
  shown: WebhookEndpoint | undefined;
  deliveries: readonly WebhookDelivery[];
  made?: MadeSecret;
  errors?: readonly string[];
}): SafeHtml {
  const csrf = view.open.session.csrf;
  const hidden = html`<input type="hidden" name="csrf_token" value="${csrf}"><input type="hidden" name="client_id" value="${view.client.id}">`;
  const made = view.made;
  const endpointHref = (endpoint: WebhookEndpoint): string => `${WEBHOOKS_PAGE}?client_id=${encodeURIComponent(view.client.id)}&endpoint_id=${endpoint.id}#deliveries`;
  return layout(
    `Webhooks of ${view.client.name}`,
    html`${view.errors !== undefined && html`<div class="error" role="alert"><ul>${view.errors.map((problem) => html`<li>${problem}</li>`)}</ul></div>`}
${
  made !== undefined &&
  html`<div class="notice" id="made-secret"><p>${made.rotated ? html`New signing secret of <strong>${made.endpoint.url}</strong>. The previous one keeps signing for 24 hours.` : html`Endpoint <strong>${made.endpoint.url}</strong> added.`}</p>
<p>Signing secret (shown only now; store it safely):</p><code class="secret" id="webhook-secret">${made.secret}</code>
<p class="muted">Verify every delivery with it, e.g. with the <code>standardwebhooks</code> library (docs/api/webhooks.md, "Signatures").</p></div>`
}
<p class="muted">Inkwell POSTs a signed event to each endpoint whenever something it subscribed to happens (docs/api/webhooks.md). Back to <a href="${DEFAULT_RETURN_TO}">your applications</a>.</p>
<h2>Endpoints</h2>
${
  view.endpoints.length === 0
    ? html`<p>None yet.</p>`
    : html`<table id="webhooks"><tr><th>URL</th><th>Events</th><th>State</th><th>Created</th><th></th></tr>
${view.endpoints.map(
  (endpoint) => html`<tr data-endpoint-id="${endpoint.id}"><td><code>${endpoint.url}</code></td><td>${endpoint.eventTypes.map((type) => html`<div>${type}</div>`)}</td><td>${endpoint.active ? 'active' : endpoint.disabledAt === undefined ? 'paused' : html`disabled ${date(endpoint.disabledAt)}`}</td><td>${date(endpoint.dateCreated)}</td>
<td><a href="${endpointHref(endpoint)}">Deliveries</a>
<form method="post" action="${WEBHOOKS_PAGE}/rotate">${hidden}<input type="hidden" name="endpoint_id" value="${endpoint.id}"><button type="submit">Rotate secret</button></form>
<form method="post" action="${WEBHOOKS_PAGE}/delete">${hidden}<input type="hidden" name="endpoint_id" value="${endpoint.id}"><button type="submit">Delete</button></form></td></tr>`,
)}</table>`
}
<h2>Add an endpoint</h2>
<form method="post" action="${WEBHOOKS_PAGE}">${hidden}
<label for="webhook-url">URL (https)</label><input type="url" id="webhook-url" name="url" required maxlength="2048">
<label>Events</label>
${WEBHOOK_EVENT_TYPES.map((type) => html`<div><input type="checkbox" id="event-${type}" name="event" value="${type}"> <label class="inline" for="event-${type}"><code>${type}</code></label></div>`)}
<button type="submit">Add endpoint</button></form>
${
  view.shown !== undefined &&
  html`<h2 id="deliveries">Recent deliveries to <code>${view.shown.url}</code></h2>
${
  view.deliveries.length === 0
    ? html`<p>None yet.</p>`
    : html`<table id="delivery-log"><tr><th>Event</th><th>Type</th><th>Status</th><th>Attempts</th><th>Response</th><th>Latency</th><th>Queued</th><th></th></tr>
${view.deliveries.map(
  (delivery) => html`<tr data-event-id="${delivery.eventId}"><td><code>${delivery.eventId}</code></td><td>${delivery.eventType}</td><td>${STATUS_NAMES[delivery.status] ?? ''}${delivery.lastError !== '' && html` (${delivery.lastError})`}</td><td>${delivery.attempts}</td><td>${delivery.lastResponseCode ?? ''}</td><td>${delivery.latencyMs === undefined ? '' : `${delivery.latencyMs} ms`}</td><td>${date(delivery.dateCreated)}</td>
<td><form method="post" action="${WEBHOOKS_PAGE}/redeliver">${hidden}<input type="hidden" name="endpoint_id" value="${view.shown?.id ?? ''}"><input type="hidden" name="event_id" value="${delivery.eventId}"><button type="submit">Redeliver</button></form></td></tr>`,
)}</table>`
}`
}`,
    { name: view.open.session.userName, csrf },
  );
}
