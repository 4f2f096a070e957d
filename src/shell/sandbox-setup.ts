// Everything a run's sandbox is made of: the probe, the private home, the run-wide /tmp, the repository's .git.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  defaultHiddenDirs,
  findExecutable,
  homeIsWorkDir,
  probeSandbox,
  sandboxWrap,
  type SandboxOptions,
  type SandboxWrapper,
} from './sandbox.js';
import { protectGitDir } from './sandbox-git.js';
import { protectStateDir } from './sandbox-state-dir.js';
import { startTmpHolder } from './sandbox-tmp.js';

interface SandboxSetupOptions {
  cwd: string;
  /** The run's private directory: shown read-only inside (spill files, the prologue); the home and /tmp live in it. */
  runDir: string;
  /** The state directory (`$XDG_STATE_HOME/agent`): never writable inside. */
  stateDir: string;
  tmpBytes: number;
  expose: readonly string[];
  /** The real environment's PATH and home directory. */
  path: string;
  home: string;
  /** The real environment's XDG_RUNTIME_DIR, hidden like /run. */
  runtimeDir: string | undefined;
  warn: (message: string) => void;
}

export interface RunSandbox {
  wrap: SandboxWrapper;
  afterCommand: () => string[];
  /** Ends the run-wide /tmp. */
  stop: () => void;
}

/** The run's sandbox, or the message that says why there can be none (bubblewrap missing, no namespaces). */
export async function setUpSandbox(options: SandboxSetupOptions): Promise<RunSandbox | { unavailable: string }> {
  const probe = await probeSandbox(options.path, options.runDir);
  if (!probe.ok) return { unavailable: probe.message };
  const home = options.home;
  if (homeIsWorkDir(home, options.cwd)) {
    options.warn(
      '--sandbox: the working directory is the home directory, so the commands see all of it (~/.ssh included); run from a project directory to keep the home hidden.',
    );
  }
  // The run's own home, empty at the start, kept from one command to the next like /tmp.
  const privateHome = join(options.runDir, 'home');
  mkdirSync(privateHome);
  const tmp = await runWideTmp(probe.bwrapPath, options);
  const git = protectGitDir(options.cwd, home);
  // Shown over /run and the like; in the run's directory, so read-only inside and empty for good.
  const emptyDir = join(options.runDir, 'empty');
  mkdirSync(emptyDir);
  const wrap = sandboxWrap(probe.bwrapPath, options.cwd, {
    ...tmp.option,
    home,
    privateHome,
    expose: options.expose,
    readOnly: [options.runDir],
    extraMounts: [...git.mounts, ...protectStateDir(options.stateDir, [options.cwd])],
    hiddenDirs: defaultHiddenDirs({ XDG_RUNTIME_DIR: options.runtimeDir }),
    emptyDir,
  });
  return { wrap, afterCommand: git.afterCommand, stop: tmp.stop };
}

/** A bounded tmpfs for the whole run; where that cannot be (an old bubblewrap, no nsenter), a host directory, said so. */
async function runWideTmp(
  bwrapPath: string,
  options: SandboxSetupOptions,
): Promise<{ option: SandboxOptions; stop: () => void }> {
  const dir = join(options.runDir, 'tmp');
  mkdirSync(dir);
  const nsenterPath = await findExecutable('nsenter', options.path);
  const holder =
    nsenterPath === undefined
      ? 'nsenter (util-linux) is not on PATH'
      : await startTmpHolder(bwrapPath, nsenterPath, dir, options.tmpBytes);
  if (typeof holder !== 'string') return { option: { tmpHolder: holder }, stop: holder.stop };
  options.warn(
    `--sandbox: /tmp is a directory on the host's disk, not a tmpfs of bounded size (${holder}); bubblewrap 0.8 or later and nsenter bound it.`,
  );
  return { option: { tmpDir: dir }, stop: () => {} };
}
