// Server-sent events, decoded from text as it arrives, exactly as the SDK's own decoder reads them (the SDK's Stream,
// core/streaming): lines end at CRLF, LF or CR; a line starting with ':' is a comment; only the `event` and `data`
// fields count, each with one optional space after its colon; an empty line ends an event; a byte-order mark at the
// start of a line is dropped; an event that the stream's end cuts off is never dispatched.
// test/event-stream.test.ts holds it against the SDK's decoder over random splits of random streams.

export interface ServerSentEvent {
  /** null when the event named none: the SDK skips such an event. */
  readonly event: string | null;
  readonly data: string;
}

export class EventStreamDecoder {
  private pending = '';
  /** The last text ended with CR: an LF that starts the next one belongs to that line ending. */
  private afterCR = false;
  private event: string | null = null;
  private data: string[] = [];

  constructor(private readonly dispatch: (event: ServerSentEvent) => void) {}

  // Line ends are found by the engine (split, indexOf), not by walking the text in JavaScript: a loop over every
  // character is optimised, then thrown away, again and again as the chunks change shape.
  write(chunk: string): void {
    if (chunk === '') return;
    const text = this.pending === '' ? chunk : this.pending + chunk;
    const from = this.afterCR && text.startsWith('\n') ? 1 : 0;
    this.afterCR = false;
    if (text.indexOf('\r', from) === -1) {
      const lines = (from === 0 ? text : text.slice(from)).split('\n');
      this.pending = lines.pop()!;
      for (const line of lines) this.line(line);
      return;
    }
    this.pending = this.splitAnyEnding(text, from);
  }

  /** Reads the lines of `text` from `start`, whatever ends them; returns what follows the last line end. */
  private splitAnyEnding(text: string, from: number): string {
    let start = from;
    let lf = text.indexOf('\n', start);
    let cr = text.indexOf('\r', start);
    while (lf !== -1 || cr !== -1) {
      const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      this.line(text.slice(start, end));
      start = end + 1;
      if (end === cr) {
        if (start === text.length) this.afterCR = true;
        else if (start === lf) start++;
        cr = text.indexOf('\r', start);
      }
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
    }
    return text.slice(start);
  }

  /** The stream has ended: its last line, unterminated, is read, but an event it leaves open is not dispatched. */
  end(): void {
    if (this.pending !== '') this.line(this.pending);
    this.pending = '';
  }

  private line(text: string): void {
    const line = text.startsWith('\uFEFF') ? text.slice(1) : text;
    if (line === '') {
      // As the SDK: an event named '' with no data is no event either.
      if (!this.event && this.data.length === 0) return;
      const data = this.data.length === 1 ? this.data[0]! : this.data.join('\n');
      const event = { event: this.event, data };
      this.event = null;
      this.data = [];
      this.dispatch(event);
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'event' && field !== 'data') return;
    const value = colon === -1 ? '' : line.slice(line.startsWith(' ', colon + 1) ? colon + 2 : colon + 1);
    if (field === 'event') this.event = value;
    else this.data.push(value);
  }
}
