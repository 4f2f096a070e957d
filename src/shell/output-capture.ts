import { closeSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { randomBytesFromKernel } from '../random.js';
import { removeQuietly } from './remove-quietly.js';
import { NO_OUTPUT } from './no-output.js';
import type { TextFilter } from './secret-mask.js';
import { HeadTailBuffer, headTail } from './truncate.js';

export { NO_OUTPUT };

interface CaptureOptions {
  maxChars: number;
  spillDir: string;
  onOutput?: (text: string) => void;
  /** Applied before anything else sees the text (secret masking). */
  mask?: TextFilter;
}

export interface CapturedOutput {
  /** The text for the model: whole, or head + marker + tail; NO_OUTPUT when nothing but blank space was printed. */
  body: string;
  outputChars: number;
  spillPath: string | null;
}

/**
 * Collects a command's cleaned output in bounded memory. Up to `maxChars` characters live only in
 * memory; past that, everything (including what was already held) is streamed to a spill file, so
 * the model can be told where the full output is. Writes are synchronous and chunked by the pipe,
 * which throttles the reader to the disk's pace instead of queueing unbounded buffers.
 * With a `mask`, text goes through it first, so the model, the spill file and the preview see only masked text.
 */
export class OutputCapture {
  private readonly buffer: HeadTailBuffer;
  private spillFd: number | null = null;
  private spillPath: string | null = null;
  private spillError: string | null = null;

  constructor(private readonly options: CaptureOptions) {
    this.buffer = new HeadTailBuffer(options.maxChars);
  }

  write(text: string): void {
    this.take(this.options.mask ? this.options.mask.push(text) : text);
  }

  private take(text: string): void {
    if (text.length === 0) return;
    const heldBefore = this.buffer.whole;
    this.buffer.push(text);
    if (this.spillPath !== null || this.spillError !== null) {
      this.spill(text);
    } else if (this.buffer.chars > this.options.maxChars) {
      this.openSpill();
      if (heldBefore) this.spill(heldBefore);
      this.spill(text);
    }
    if (this.options.onOutput) {
      try {
        this.options.onOutput(text);
      } catch {
        // A failing preview must never break the command's capture.
      }
    }
  }

  /** Close the spill file and format the result. Call once. */
  finish(): CapturedOutput {
    if (this.options.mask) this.take(this.options.mask.end());
    this.closeSpill();
    const outputChars = this.buffer.chars;
    const { text } = headTail(this.buffer.snapshot(), {
      maxChars: this.options.maxChars,
      spillPath: this.spillPath,
      spillError: this.spillError,
    });
    return { body: text.trim() === '' ? NO_OUTPUT : text, outputChars, spillPath: this.spillPath };
  }

  /** Close the spill file without formatting (e.g. when abandoning a run). Idempotent. */
  closeSpill(): void {
    if (this.spillFd === null) return;
    try {
      closeSync(this.spillFd);
    } catch {
      // Already closed or the disk went away: nothing more to save.
    }
    this.spillFd = null;
  }

  private openSpill(): void {
    const name = `agent-output-${process.pid}-${Date.now()}-${randomBytesFromKernel(4).toString('hex')}.txt`;
    const file = path.join(this.options.spillDir, name);
    try {
      this.spillFd = openSync(file, 'wx', 0o600);
      this.spillPath = file;
    } catch (error) {
      this.spillError = describeError(error);
    }
  }

  private spill(text: string): void {
    if (this.spillFd === null) return;
    try {
      writeSync(this.spillFd, text);
    } catch (error) {
      // Disk full or similar: keep the command going, report that the file is incomplete.
      this.spillError = describeError(error);
      this.closeSpill();
      if (this.spillPath) removeQuietly(this.spillPath);
      this.spillPath = null;
    }
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
