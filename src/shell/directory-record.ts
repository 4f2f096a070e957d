import { closeSync, fstatSync } from 'node:fs';
import path from 'node:path';
import { openOwnFile, readStart } from '../own-file.js';

/** The longest directory record read back; anything longer is not a directory the shell recorded. */
const MAX_RECORD_BYTES = 64 * 1024;

/**
 * The file the shell records its directory in (see prologue.ts), read back after each command. It lies where the
 * commands can write, so it is opened as any file others could plant (no link followed, no FIFO waited on, a regular
 * file of this user's only), and then kept open: each later look reads the same file again, so nothing put in its
 * place meanwhile is ever read. Once that file has no name left (removed, or replaced), the shell writes a new one
 * there, which is opened the same way.
 */
export class DirectoryRecord {
  private fd: number | undefined;

  constructor(private readonly file: string) {}

  /** The directory the shell ended in, as last recorded; null when nothing was recorded. */
  read(): string | null {
    try {
      if (this.fd !== undefined && fstatSync(this.fd).nlink === 0) this.close();
      this.fd ??= openOwnFile(this.file);
      if (this.fd === undefined) return null;
      const recorded = readStart(this.fd, MAX_RECORD_BYTES);
      const end = recorded.indexOf('\0');
      const dir = end === -1 ? '' : recorded.slice(0, end);
      return path.isAbsolute(dir) ? dir : null;
    } catch {
      this.close();
      return null;
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
    this.fd = undefined;
  }
}
