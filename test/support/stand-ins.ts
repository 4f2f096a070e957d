import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './run-agent.js';

/** A directory of stand-in commands, first on PATH, each of which records its arguments in calls.log. */
export function standIns(scripts: Record<string, string>): { dir: string; path: string; calls: () => string } {
  const dir = tempDir('agent-standins-');
  for (const [name, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, name), `#!/bin/bash\necho "${name} $*" >> "${dir}/calls.log"\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  const calls = () => (existsSync(join(dir, 'calls.log')) ? readFileSync(join(dir, 'calls.log'), 'utf8') : '');
  return { dir, path: `${dir}:${process.env.PATH}`, calls };
}

/** A directory holding harmless stand-ins, put first on PATH, so a command that slips through is visible and safe. */
export function fakePath(...names: string[]): string {
  const bin = tempDir('agent-fake-bin-');
  for (const name of names) {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "fake ${name} ran: $*"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return `${bin}:${process.env.PATH}`;
}
