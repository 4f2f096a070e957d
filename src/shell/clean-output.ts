// Turns a byte stream from a terminal-minded program into plain text, chunk by chunk:
// - invalid UTF-8 becomes U+FFFD (streaming decoder, so characters split across chunks survive);
// - ANSI escape sequences are removed (CSI, OSC, DCS/SOS/PM/APC strings, two-character escapes),
//   even when a sequence is split across chunks;
// - "\r\n" becomes "\n" and a lone "\r" (progress bars) becomes "\n";
// - other control characters (NUL, BEL, backspace, DEL, C1 controls) are dropped; "\n" and "\t" stay.
// State is bounded: nothing is buffered except the decoder's partial character.

const ESC = 0x1b;
const BEL = 0x07;
const CR = 0x0d;
const LF = 0x0a;

/** Strings (OSC, DCS...) longer than this are treated as garbage, so binary output cannot swallow the rest. */
const MAX_STRING_SEQUENCE = 4096;
const MAX_CSI_SEQUENCE = 64;

/** Any character needing attention: C0 controls except \t and \n, DEL, C1 controls. */
const SPECIAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const SPECIAL_GLOBAL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
const NOT_ASCII = /[\x80-\xff]/;
/** A run of controls that are simply dropped (everything special except ESC and CR). */
const DROPPED_RUN = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]+/y;

type State =
  | 'text'
  | 'escape' // after ESC
  | 'escape-intermediate' // ESC followed by 0x20-0x2F bytes
  | 'csi' // ESC [
  | 'string' // OSC / DCS / SOS / PM / APC body
  | 'string-escape'; // ESC inside a string: "\" ends it

export class OutputCleaner {
  /**
   * Made for the first chunk that is not plain ASCII, and used for every chunk after it, since it may hold the start
   * of a character. Most output is ASCII, and most cleaners (a command's stderr, text already decoded) never need one.
   */
  private decoder: InstanceType<typeof TextDecoder> | undefined;
  /** Bytes have come since the stream started: a byte order mark from here on is a character, not a mark. */
  private started = false;
  private state: State = 'text';
  private sequenceLength = 0;
  private pendingCR = false;

  /** Clean the next chunk of bytes; returns the text ready to show (possibly empty). */
  push(bytes: Uint8Array): string {
    if (this.decoder === undefined) {
      const text = latin1(bytes);
      if (!NOT_ASCII.test(text)) {
        this.started ||= bytes.length > 0;
        return this.clean(text);
      }
      this.decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: this.started });
    }
    return this.clean(this.decoder.decode(bytes, { stream: true }));
  }

  /** Clean the next piece of text that is already decoded (the model's words, a message). */
  pushText(text: string): string {
    return this.clean(text);
  }

  /** Flush at end of stream. */
  end(): string {
    let text = this.decoder === undefined ? '' : this.clean(this.decoder.decode());
    this.decoder = undefined;
    this.started = false;
    if (this.pendingCR) {
      text += '\n';
      this.pendingCR = false;
    }
    this.state = 'text';
    return text;
  }

  private clean(input: string): string {
    if (input.length === 0) return '';
    let prefix = '';
    let start = 0;
    if (this.pendingCR) {
      this.pendingCR = false;
      prefix = '\n';
      if (input.charCodeAt(0) === LF) start = 1;
    }
    if (this.state === 'text' && !SPECIAL.test(input)) {
      return prefix + (start === 0 ? input : input.slice(start));
    }
    return prefix + this.cleanSlow(input, start);
  }

  private cleanSlow(input: string, from: number): string {
    const out: string[] = [];
    let i = from;
    while (i < input.length) {
      if (this.state === 'text') {
        SPECIAL_GLOBAL.lastIndex = i;
        const match = SPECIAL_GLOBAL.exec(input);
        if (!match) {
          out.push(input.slice(i));
          break;
        }
        if (match.index > i) out.push(input.slice(i, match.index));
        i = match.index;
        DROPPED_RUN.lastIndex = i;
        if (DROPPED_RUN.test(input)) {
          i = DROPPED_RUN.lastIndex;
          continue;
        }
        const code = input.charCodeAt(i);
        i++;
        if (code === ESC) {
          this.state = 'escape';
          this.sequenceLength = 0;
        } else if (code === CR) {
          if (i >= input.length) {
            this.pendingCR = true;
          } else {
            out.push('\n');
            if (input.charCodeAt(i) === LF) i++;
          }
        }
        continue;
      }
      const code = input.charCodeAt(i);
      if (this.step(code)) i++;
    }
    return out.join('');
  }

  /** Advance the escape-sequence state by one character; false when the character must be re-read as text. */
  private step(code: number): boolean {
    this.sequenceLength++;
    switch (this.state) {
      case 'escape':
        if (code === 0x5b) this.state = 'csi';
        else if (code === 0x5d || code === 0x50 || code === 0x58 || code === 0x5e || code === 0x5f)
          this.state = 'string';
        else if (code >= 0x20 && code <= 0x2f) this.state = 'escape-intermediate';
        else if (code >= 0x30 && code <= 0x7e) this.state = 'text';
        else return this.abort();
        return true;
      case 'escape-intermediate':
        if (code >= 0x20 && code <= 0x2f) return true;
        if (code >= 0x30 && code <= 0x7e) {
          this.state = 'text';
          return true;
        }
        return this.abort();
      case 'csi':
        if (code >= 0x40 && code <= 0x7e) {
          this.state = 'text';
          return true;
        }
        if (code >= 0x20 && code <= 0x3f && this.sequenceLength <= MAX_CSI_SEQUENCE) return true;
        return this.abort();
      case 'string':
        if (code === BEL) {
          this.state = 'text';
          return true;
        }
        if (code === ESC) {
          this.state = 'string-escape';
          return true;
        }
        if (code === LF || this.sequenceLength > MAX_STRING_SEQUENCE) return this.abort();
        return true;
      case 'string-escape':
        if (code === 0x5c) {
          this.state = 'text';
          return true;
        }
        // Not a string terminator: treat this ESC as the start of a new sequence.
        this.state = 'escape';
        this.sequenceLength = 0;
        return this.step(code);
      case 'text':
        return false;
    }
  }

  /** A malformed sequence ends here; the current character is read again as text. */
  private abort(): false {
    this.state = 'text';
    return false;
  }
}

/** ASCII bytes as text: each byte is its own character. */
function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** Clean a whole string that is already decoded; text without any control character is returned as it is. */
export function cleanString(text: string): string {
  if (!SPECIAL.test(text)) return text;
  const cleaner = new OutputCleaner();
  return cleaner.pushText(text) + cleaner.end();
}

/** Clean a whole string at once (tests, one-off text). */
export function cleanText(text: string): string {
  const cleaner = new OutputCleaner();
  return cleaner.push(new TextEncoder().encode(text)) + cleaner.end();
}
