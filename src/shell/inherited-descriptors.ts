// The descriptors beyond stdio that a command's shell would inherit from the agent: those open without
// close-on-exec. Node and libuv open every descriptor close-on-exec, so these are what the agent itself was started
// with (by a CI runner, a parent that leaked them). They are read once, from /proc, so that the prologue closes
// exactly these numbers instead of listing its descriptors on every command.
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;
/** `flags:` is the second line, after `pos:`; what follows (an epoll's watch list, say) is not needed. */
const FDINFO_HEAD_BYTES = 256;

/**
 * The open descriptors above 2 without close-on-exec, ascending; undefined when /proc cannot tell (not mounted, not
 * this process's, not procfs), and the shell must then find and close its descriptors itself.
 */
export function descriptorsWithoutCloseOnExec(procSelf = '/proc/self'): number[] | undefined {
  let names: string[];
  try {
    names = readdirSync(`${procSelf}/fd`);
  } catch {
    return undefined;
  }
  const found: number[] = [];
  const head = Buffer.alloc(FDINFO_HEAD_BYTES);
  for (const name of names) {
    if (!/^\d+$/.test(name)) return undefined;
    const fd = Number(name);
    if (fd <= 2) continue;
    const flags = descriptorFlags(`${procSelf}/fdinfo/${name}`, head);
    if (flags === 'closed') continue;
    if (flags === undefined) return undefined;
    if ((flags & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/** The open flags of one descriptor; 'closed' when it closed since the listing (the listing's own directory). */
function descriptorFlags(fdinfo: string, head: Buffer): number | 'closed' | undefined {
  let text: string;
  // Not readFileSync: a /proc file has no size, and reading it whole costs several reads.
  let fd: number | undefined;
  try {
    fd = openSync(fdinfo, 'r');
    text = head.toString('latin1', 0, readSync(fd, head, 0, head.length, null));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'closed' : undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const octal = /^flags:\s*([0-7]+)$/m.exec(text)?.[1];
  return octal === undefined ? undefined : Number.parseInt(octal, 8);
}
