/**
 * A minimal browser stand-in for tests of the server-rendered pages: keeps cookies per name
 * (as a browser would for one origin), never follows redirects on its own (tests look at each
 * Location), and reads forms out of the HTML the way a person would fill them in.
 */
export class WebClient {
  readonly #cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  /** The cookie header a browser would send; '' when there are none. */
  get cookieHeader(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** GET `path` (relative to the origin, or absolute). */
  get(path: string, headers: Record<string, string> = {}): Promise<WebResponse> {
    return this.#send(path, { method: 'GET', headers });
  }

  /** POSTs `fields` as application/x-www-form-urlencoded, with the Origin a browser would send. */
  post(path: string, fields: Record<string, string | readonly string[]> | URLSearchParams, headers: Record<string, string> = {}): Promise<WebResponse> {
    const body = fields instanceof URLSearchParams ? fields : toParams(fields);
    return this.#send(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, ...headers }, body: body.toString() });
  }

  async #send(path: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<WebResponse> {
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.cookieHeader;
    if (cookie !== '') headers.cookie = cookie;
    const response = await fetch(new URL(path, this.origin), { ...init, headers, redirect: 'manual' });
    for (const line of response.headers.getSetCookie()) this.#store(line);
    return { status: response.status, headers: response.headers, location: response.headers.get('location'), text: await response.text() };
  }

  #store(line: string): void {
    const [pair = '', ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const maxAge = attributes.map((attribute) => attribute.trim()).find((attribute) => attribute.toLowerCase().startsWith('max-age='));
    if (value === '' || maxAge?.toLowerCase() === 'max-age=0') this.#cookies.delete(name);
    else this.#cookies.set(name, value);
  }
}

/** What a WebClient request answered. */
export interface WebResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly location: string | null;
  readonly text: string;
}

function toParams(fields: Record<string, string | readonly string[]>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) for (const one of typeof value === 'string' ? [value] : value) params.append(name, one);
  return params;
}

/** The hidden inputs of the form posting to `action` in `html`, decoded, as a person's browser would submit them. */
export function hiddenFields(html: string, action: string): URLSearchParams {
  const form = formHtml(html, action);
  const fields = new URLSearchParams();
  for (const match of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields.append(decode(match[1] as string), decode(match[2] as string));
  return fields;
}

/** The HTML of the first form whose action is `action`; throws when there is none. */
export function formHtml(html: string, action: string): string {
  const start = html.indexOf(`action="${action}"`);
  if (start === -1) throw new Error(`no form posting to ${action} in:\n${html.slice(0, 2000)}`);
  const end = html.indexOf('</form>', start);
  return html.slice(start, end);
}

/** The text of the element with `id`, decoded (e.g. a secret shown once). */
export function elementText(html: string, id: string): string {
  const match = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html);
  if (match === null) throw new Error(`no element #${id}`);
  return decode(match[1] as string);
}

/** Decodes the entities our pages produce. */
export function decode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[entity] as string);
}
