// --sandbox: every command runs under bubblewrap. The filesystem is read-only except the
// working directory, the executor's state directory and a private /tmp; there is no
// network; the sandbox dies with the run.
import { constants, realpathSync } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export type SandboxProbe = { ok: true; bwrapPath: string } | { ok: false; message: string };

export interface SandboxContext {
  cwd: string;
  stateDir: string;
}

export interface SandboxOptions {
  /** Host directory to show as /tmp, so /tmp lasts the whole run. Default: a fresh tmpfs per command. */
  tmpDir?: string;
}

export type SandboxWrapper = (argv: string[], ctx: SandboxContext) => string[];

const PROBE_TIMEOUT_MS = 10_000;

const INSTALL_HINT =
  'Install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch).';

const NAMESPACE_HINT =
  'Unprivileged user namespaces look unavailable: allow them (sysctl kernel.unprivileged_userns_clone=1 on Debian, ' +
  'kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 23.10+, user.max_user_namespaces > 0), ' +
  'or in a container run it with user namespaces allowed (e.g. --security-opt seccomp=unconfined --security-opt apparmor=unconfined).';

/** Turns `['bash', '-c', script]` into the same command run under bubblewrap. */
export function sandboxWrap(bwrapPath: string, workDir: string, options: SandboxOptions = {}): SandboxWrapper {
  const writableRoot = realpathOr(workDir);
  const tmpDir = options.tmpDir === undefined ? undefined : realpathOr(options.tmpDir);
  return (argv, ctx) => [bwrapPath, ...sandboxFlags(writableRoot, realpathOr(ctx.stateDir), tmpDir), '--chdir', ctx.cwd, '--', ...argv];
}

function sandboxFlags(workDir: string, stateDir: string, tmpDir: string | undefined): string[] {
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    // /tmp first: the working and state directories often live under /tmp, and their
    // binds must land on top of the private /tmp, not under it.
    // A run-wide /tmp is also visible at its host path, so files the executor names there (full-output files) resolve inside.
    ...(tmpDir === undefined ? ['--tmpfs', '/tmp'] : ['--bind', tmpDir, '/tmp', '--bind', tmpDir, tmpDir]),
    '--bind', workDir, workDir,
    '--bind', stateDir, stateDir,
    '--setenv', 'TMPDIR', '/tmp',
    // A user namespace even when the run is root, and no capabilities: otherwise root
    // inside could simply remount / read-write.
    '--unshare-user',
    '--cap-drop', 'ALL',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    // With its own pid namespace, everything inside dies when bwrap does: killing the
    // executor's process group (bwrap's) kills the whole tree, even processes that
    // called setsid, and background children cannot outlive the command.
    '--unshare-pid',
    '--die-with-parent',
    // setsid inside: no access to the controlling terminal (TIOCSTI injection).
    '--new-session',
  ];
}

export async function probeSandbox(options: { path?: string } = {}): Promise<SandboxProbe> {
  const bwrapPath = await findExecutable('bwrap', options.path ?? process.env.PATH ?? '');
  if (bwrapPath === undefined) {
    return { ok: false, message: `--sandbox needs bubblewrap (bwrap), which is not on PATH.\n${INSTALL_HINT}` };
  }
  const scratch = await mkdtemp(join(tmpdir(), 'agent-sandbox-probe-'));
  try {
    const argv = sandboxWrap(bwrapPath, scratch)(['sh', '-c', 'exit 0'], { cwd: scratch, stateDir: scratch });
    const result = await run(argv);
    if (result.ok) return { ok: true, bwrapPath };
    return {
      ok: false,
      message: `--sandbox: bubblewrap (${bwrapPath}) cannot create a sandbox here: ${result.detail}.\n${NAMESPACE_HINT}`,
    };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function findExecutable(name: string, searchPath: string): Promise<string | undefined> {
  for (const directory of searchPath.split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}

/** Runs the probe once; zx gives the timeout and the no-throw result a one-off command wants. */
async function run(argv: string[]): Promise<{ ok: true } | { ok: false; detail: string }> {
  const { $ } = await import('zx');
  const result = await $({ nothrow: true, quiet: true, timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] })`${argv}`;
  if (result.exitCode === 0) return { ok: true };
  const firstLine = result.stderr.trim().split('\n')[0];
  const status = result.signal === null ? `exit status ${String(result.exitCode)}` : `killed by ${result.signal}`;
  return { ok: false, detail: firstLine === undefined || firstLine === '' ? status : firstLine };
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
