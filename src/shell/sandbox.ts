// --sandbox: every command runs under bubblewrap. The filesystem is read-only except the
// working directory, the executor's state directory and a private /tmp; the home directory is
// an empty private one (paths of the real home can be shown read-only); there is no network;
// the sandbox dies with the run.
import { constants, realpathSync } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';

export type SandboxProbe = { ok: true; bwrapPath: string } | { ok: false; message: string };

export interface SandboxContext {
  cwd: string;
  stateDir: string;
}

export interface SandboxOptions {
  /** Host directory to show as /tmp, so /tmp lasts the whole run. Default: a fresh tmpfs per command. */
  tmpDir?: string;
  /** The home directory to hide (default: os.homedir()). Not hidden when it is / or does not exist. */
  home?: string;
  /** Host directory shown in place of the home, so the home lasts the whole run. Default: a fresh tmpfs per command. */
  privateHome?: string;
  /** Paths shown read-only at their own place, typically files of the hidden home (~/.gitconfig). */
  expose?: readonly string[];
}

export type SandboxWrapper = (argv: string[], ctx: SandboxContext) => string[];

/** One bwrap mount: its flags and the path inside the sandbox it lands on. */
interface Mount {
  at: string;
  flags: string[];
}

const PROBE_TIMEOUT_MS = 10_000;

const INSTALL_HINT =
  'Install bubblewrap: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora), pacman -S bubblewrap (Arch).';

const NAMESPACE_HINT =
  'Unprivileged user namespaces look unavailable: allow them (sysctl kernel.unprivileged_userns_clone=1 on Debian, ' +
  'kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 23.10+, user.max_user_namespaces > 0), ' +
  'or in a container run it with user namespaces allowed (e.g. --security-opt seccomp=unconfined --security-opt apparmor=unconfined).';

const ISOLATION_FLAGS: readonly string[] = [
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

/** Turns `['bash', '-c', script]` into the same command run under bubblewrap. */
export function sandboxWrap(bwrapPath: string, workDir: string, options: SandboxOptions = {}): SandboxWrapper {
  const writableRoot = realpathOr(workDir);
  const tmpDir = options.tmpDir === undefined ? undefined : realpathOr(options.tmpDir);
  const home = hiddenHome(options.home ?? homedir());
  const privateHome = options.privateHome === undefined ? undefined : realpathOr(options.privateHome);
  const exposed = (options.expose ?? []).map(exposure);
  return (argv, ctx) => [
    bwrapPath,
    ...mountFlags({ workDir: writableRoot, stateDir: realpathOr(ctx.stateDir), tmpDir, home, privateHome, exposed }),
    ...ISOLATION_FLAGS,
    '--chdir',
    ctx.cwd,
    '--',
    ...argv,
  ];
}

interface MountPlan {
  workDir: string;
  stateDir: string;
  tmpDir: string | undefined;
  home: string | undefined;
  privateHome: string | undefined;
  exposed: Array<{ from: string; at: string }>;
}

/**
 * The mounts, shallowest first: a mount hides what an earlier one put beneath it, so the most specific path wins.
 * The working and state directories often live under /tmp and must land on top of the private /tmp; a working
 * directory inside the home must land on top of the hidden home; a home inside the working directory is hidden
 * again. At equal depth the listed order holds: a working directory that is the home itself is shown, writable.
 */
function mountFlags(plan: MountPlan): string[] {
  const { workDir, stateDir, tmpDir, home, privateHome, exposed } = plan;
  const mounts: Mount[] = [
    { at: '/', flags: ['--ro-bind', '/', '/'] },
    { at: '/dev', flags: ['--dev', '/dev'] },
    { at: '/proc', flags: ['--proc', '/proc'] },
    // A run-wide /tmp is also visible at its host path, so files the executor names there (full-output files) resolve inside.
    ...(tmpDir === undefined
      ? [{ at: '/tmp', flags: ['--tmpfs', '/tmp'] }]
      : [{ at: '/tmp', flags: ['--bind', tmpDir, '/tmp'] }, { at: tmpDir, flags: ['--bind', tmpDir, tmpDir] }]),
    ...(home === undefined ? [] : [{ at: home, flags: privateHome === undefined ? ['--tmpfs', home] : ['--bind', privateHome, home] }]),
    ...exposed.map(({ from, at }) => ({ at, flags: ['--ro-bind', from, at] })),
    { at: workDir, flags: ['--bind', workDir, workDir] },
    { at: stateDir, flags: ['--bind', stateDir, stateDir] },
  ];
  const ordered = mounts.map((mount, index) => ({ mount, index })).sort((a, b) => depth(a.mount.at) - depth(b.mount.at) || a.index - b.index);
  return [...ordered.flatMap(({ mount }) => mount.flags), '--setenv', 'TMPDIR', '/tmp'];
}

function depth(path: string): number {
  return path.split('/').filter((part) => part !== '').length;
}

/** The home to hide, resolved; none when it is the root itself or does not exist (nothing to hide, nowhere to mount). */
function hiddenHome(home: string): string | undefined {
  let resolved: string;
  try {
    resolved = realpathSync(home);
  } catch {
    return undefined;
  }
  return resolved === '/' ? undefined : resolved;
}

/** An exposed path keeps its own name (a symlinked ~/.gitconfig shows as ~/.gitconfig) and shows what it points to. */
function exposure(path: string): { from: string; at: string } {
  return { from: realpathOr(path), at: join(realpathOr(dirname(path)), basename(path)) };
}

/** `path` is the PATH to find bwrap on. */
export async function probeSandbox(path: string): Promise<SandboxProbe> {
  const bwrapPath = await findExecutable('bwrap', path);
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

/** True when the working directory is the home itself: the home is then shown, writable, since the task is there. */
export function homeIsWorkDir(home: string, workDir: string): boolean {
  const hidden = hiddenHome(home);
  return hidden !== undefined && hidden === realpathOr(workDir);
}
