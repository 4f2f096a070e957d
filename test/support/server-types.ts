// Types shared by the scripted Anthropic-compatible test server's modules.

export type StopReason =
  | 'end_turn'
  | 'max_tokens'
  | 'stop_sequence'
  | 'tool_use'
  | 'pause_turn'
  | 'refusal'
  | 'model_context_window_exceeded';

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id?: string; name: string; input: unknown }
  /** Signed by the server unless a signature is given; null sends none at all (a stream cut before it came). */
  | { type: 'thinking'; thinking: string; signature?: string | null }
  | { type: 'redacted_thinking'; data?: string };

/** A block as it goes out on the wire: tool_use ids, thinking signatures and redacted data filled in. */
export type ResolvedBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'thinking'; thinking: string; signature: string | null }
  | { type: 'redacted_thinking'; data: string };

export interface MessageTurn {
  kind: 'message';
  content: Block[];
  /** Default: 'tool_use' if any tool_use block, else 'end_turn'. */
  stop_reason?: StopReason;
  /** Overrides fields of the computed usage. */
  usage?: Partial<Usage>;
  /** Wait before sending the response headers. */
  delayMs?: number;
  /** Wait between SSE events. */
  chunkDelayMs?: number;
  /** After message_start, this many `ping` events, one every `everyMs`, before any content: a slow but live stream. */
  pings?: { count: number; everyMs: number };
}

/** Any HTTP response at all, as a misconfigured endpoint, a proxy or a captive portal might send. */
export interface RawTurn {
  kind: 'raw';
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export interface HttpErrorTurn {
  kind: 'http_error';
  status: number;
  /** Default: the error type the real API uses for that status. */
  type?: string;
  message?: string;
  headers?: Record<string, string>;
}

/**
 * The broken-stream turns. `afterEvents` counts the SSE events written before the break
 * (default: just after the first content_block_delta). `content` is what the stream was
 * going to say (default: one text block).
 */
export interface StreamErrorTurn {
  kind: 'stream_error';
  afterEvents?: number;
  error?: { type: string; message: string };
  content?: Block[];
}
export interface DropTurn {
  kind: 'drop';
  afterEvents?: number;
  content?: Block[];
}
export interface TruncatedTurn {
  kind: 'truncated';
  afterEvents?: number;
  content?: Block[];
}
export interface HangTurn {
  kind: 'hang';
}

export type StaticTurn = MessageTurn | HttpErrorTurn | StreamErrorTurn | DropTurn | TruncatedTurn | HangTurn | RawTurn;
export type DynamicTurn = (req: RecordedRequest) => Turn | Promise<Turn>;
export type Turn = StaticTurn | DynamicTurn;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The head as it came: request line and header lines, names in their case and order, values as sent. */
  rawHead: { line: string; headers: string[] };
  /** The body's bytes as text, before any parsing. */
  rawBody: string;
  // The parsed JSON body (the raw text when it is not JSON); tests read arbitrary fields of it.
  body: any;
  rejected?: { status: number; message: string };
}

export interface ServerOptions {
  /** If set, prompts whose token count exceeds it get `prompt is too long: N tokens > M maximum`. */
  contextWindow?: number;
  /** How many characters the server counts as one token (default 3, as real tokenizers do on code and logs). */
  charsPerToken?: number;
  /** What to answer once the script has run out (default: a 500 'test script exhausted'). */
  onExhausted?: Turn;
  /** If set, 401 unless the request carries this x-api-key / Authorization: Bearer. */
  requireAuth?: { apiKey?: string; bearer?: string };
  /** Serve https with this key and certificate (see tls.ts) instead of plain http. */
  tls?: { key: string; cert: string };
  /**
   * output_config and tool `strict`: checked against the schema subset the real API accepts ('supported', the
   * default), refused as unknown fields with a 400 as some third-party endpoints do ('rejected'), or ignored.
   */
  structuredOutputs?: import('./server-structured.js').StructuredOutputs;
  /** `thinking` and `output_config.effort`: taken as the real API takes them (the default), or refused as unknown fields. */
  thinking?: import('./server-thinking.js').ThinkingSupport;
  /** If set, a model id not in it gets the API's 404 `model: <id>`. */
  models?: string[];
}

export interface TestServer {
  /** http://127.0.0.1:PORT (https:// with the tls option), without /v1. */
  url: string;
  /** TCP connections accepted so far, those that never got to a request (a failed TLS handshake) included. */
  connections(): number;
  /** Every request received, in order, rejected ones included. */
  requests: RecordedRequest[];
  validRequests(): RecordedRequest[];
  rejections(): RecordedRequest[];
  /** The sum of the usage reported in all successful responses. */
  totals(): Usage;
  /** Closes the server and destroys open sockets, hanging ones included. */
  close(): Promise<void>;
}

/** A rejection as the API reports it. */
export interface ApiFailure {
  status: number;
  type: string;
  message: string;
}
