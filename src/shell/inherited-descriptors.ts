// The descriptors beyond stdio that a command's shell would inherit from the agent: those open without
// close-on-exec. Node and libuv open every descriptor close-on-exec, so these are what the agent itself was started
// with (by a CI runner, a parent that leaked them). They are read once, from /proc, so that the prologue closes
// exactly these numbers instead of listing its descriptors on every command.
import { readdirSync, readFileSync } from 'node:fs';

const O_CLOEXEC = 0o2000000;

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
  for (const name of names) {
    if (!/^\d+$/.test(name)) return undefined;
    const fd = Number(name);
    if (fd <= 2) continue;
    const flags = descriptorFlags(`${procSelf}/fdinfo/${name}`);
    if (flags === 'closed') continue;
    if (flags === undefined) return undefined;
    if ((flags & O_CLOEXEC) === 0) found.push(fd);
  }
  return found.sort((a, b) => a - b);
}

/** The open flags of one descriptor; 'closed' when it closed since the listing (the listing's own directory). */
function descriptorFlags(fdinfo: string): number | 'closed' | undefined {
  let text: string;
  try {
    // As UTF-8: read whole in one call into Node's runtime, which costs less than reading its head from here.
    text = readFileSync(fdinfo, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'closed' : undefined;
  }
  const octal = /^flags:\s*([0-7]+)$/m.exec(text)?.[1];
  return octal === undefined ? undefined : Number.parseInt(octal, 8);
}
