// Wraps the SDK's fetch with a check the SDK does not make. A 200 whose body is not an event stream (a captive
// portal's page, a proxy's error page, a wrong ANTHROPIC_BASE_URL) would otherwise read as a stream that "ended
// without sending any chunks" and be retried; it is not transient, so it fails at once with what came back.
import type { LightBody } from './light-fetch-types.js';

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const SHOWN_BYTES = 300;

/** A successful status with a body that is not the API's: not retried. */
export class UnexpectedResponse extends Error {
  override name = 'UnexpectedResponse';
  constructor(
    readonly status: number,
    readonly contentType: string,
    readonly firstWords: string,
  ) {
    super(
      `HTTP ${status} with content type '${contentType || 'none'}' instead of an event stream: ${firstWords || '(empty body)'}`,
    );
  }
}

export function checkedFetch(fetch: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = response.body;
    if (!response.ok || body === null) return response;
    const contentType = response.headers.get('content-type') ?? '';
    if (wantsStream(init) && !contentType.includes('text/event-stream')) {
      throw new UnexpectedResponse(response.status, contentType, await firstWords(body as unknown as LightBody));
    }
    return response;
  };
}

/**
 * The SDK writes the body with JSON.stringify, so a streamed request holds exactly this text. It is written last, so
 * the search starts from the end of what may be a long conversation.
 */
function wantsStream(init: RequestInit | undefined): boolean {
  return typeof init?.body === 'string' && init.body.lastIndexOf('"stream":true') !== -1;
}

/** The start of a body, as one line of text: enough to recognise an HTML page or a proxy's message. */
async function firstWords(body: LightBody): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    // Leaving the loop early closes the body: the rest is never read.
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= SHOWN_BYTES) break;
    }
  } catch {
    // What arrived before the connection broke is enough to show.
  }
  const text = Buffer.concat(chunks).toString('utf8').replace(/\s+/g, ' ').trim();
  return text.length > SHOWN_BYTES ? `${text.slice(0, SHOWN_BYTES)}…` : text;
}
