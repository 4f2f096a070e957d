// --sandbox: every command runs under bubblewrap. The filesystem is read-only except the
// working directory, the directory the shell records its own directory in, and a private /tmp of
// bounded size; the home directory is an empty private one (paths of the real home can be shown
// read-only); the host's runtime directories (its Unix sockets) are hidden; there is no network;
// the sandbox dies with the run.
import { constants, realpathSync, statSync } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import type { Mount } from './sandbox-mount.js';

type SandboxProbe = { ok: true; bwrapPath: string } | { ok: false; message: string };

interface SandboxContext {
  cwd: string;
  /** The shell's bookkeeping, shown read-only... */
  stateDir: string;
  /** ...but for this directory inside it, where the shell records its directory (default: none). */
  writableDir?: string;
}

/** A run-wide /tmp: a tmpfs that a long-lived process keeps mounted at `dir` in its mount namespace. */
export interface TmpHolder {
  pid: number;
  dir: string;
  nsenterPath: string;
}

/** The default size of /tmp, in bytes. */
export const DEFAULT_TMP_BYTES = 1024 ** 3;

export interface SandboxOptions {
  /** The run-wide /tmp; without one, a fresh tmpfs of `tmpBytes` per command. */
  tmpHolder?: TmpHolder;
  /** Host directory to show as /tmp instead, where no bounded tmpfs can be kept (an old bubblewrap). */
  tmpDir?: string;
  /** The size of a per-command /tmp (DEFAULT_TMP_BYTES by default). */
  tmpBytes?: number;
  /** The home directory to hide (default: os.homedir()). Not hidden when it is / or does not exist. */
  home?: string;
  /** Host directory shown in place of the home, so the home lasts the whole run. Default: a fresh tmpfs per command. */
  privateHome?: string;
  /** Paths shown read-only at their own place, typically files of the hidden home (~/.gitconfig). */
  expose?: readonly string[];
  /** Host directories shown read-only at their own place: the run's private directory (spill files, the prologue). */
  readOnly?: readonly string[];
  /** More mounts, such as the repository's protected .git entries. */
  extraMounts?: readonly Mount[];
  /** Directories hidden behind empty ones, for the host's Unix sockets (default: the host's runtime directories). */
  hiddenDirs?: readonly string[];
  /** An empty directory that stays empty, shown over each hidden one (a bind costs less than a tmpfs); default: tmpfs. */
  emptyDir?: string;
}

export type SandboxWrapper = (argv: string[], ctx: SandboxContext) => string[];

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
  '--cap-drop',
  'ALL',
  '--unshare-cgroup-try',
  // With its own pid namespace, everything inside dies when bwrap does: killing the
  // executor's process group (bwrap's) kills the whole tree, even processes that
  // called setsid, and background children cannot outlive the command.
  '--unshare-pid',
  '--die-with-parent',
  // setsid inside: no access to the controlling terminal (TIOCSTI injection).
  '--new-session',
];

/**
 * No network (a namespace with only a loopback), no host IPC, no host name. Made once per run when a holder keeps
 * the run's /tmp (its namespaces, which every command joins), else for each command.
 */
export const RUN_NAMESPACE_FLAGS: readonly string[] = ['--unshare-net', '--unshare-ipc', '--unshare-uts'];

/** Turns `['bash', '-c', script]` into the same command run under bubblewrap. */
export function sandboxWrap(bwrapPath: string, workDir: string, options: SandboxOptions = {}): SandboxWrapper {
  const holder = options.tmpHolder;
  const plan: Omit<MountPlan, 'stateDir' | 'writableDir'> = {
    workDir: realpathOr(workDir),
    tmp: tmpMounts(options),
    home: hiddenHome(options.home ?? homedir()),
    privateHome: options.privateHome === undefined ? undefined : realpathOr(options.privateHome),
    exposed: [
      ...(options.expose ?? []).map(exposure),
      ...(options.readOnly ?? []).map((path) => ({ from: realpathOr(path), at: realpathOr(path) })),
    ],
    hidden: hiddenDirectories(options.hiddenDirs ?? defaultHiddenDirs({})).map((dir) => ({
      at: dir,
      flags: options.emptyDir === undefined ? ['--tmpfs', dir] : ['--ro-bind', options.emptyDir, dir],
    })),
    extra: options.extraMounts ?? [],
  };
  // The run-wide /tmp is a mount of the holder's namespace: each command's sandbox is made from inside it, and in
  // the holder's network, IPC and UTS namespaces, which cost far less to join than to make for every command.
  const prefix =
    holder === undefined
      ? []
      : [holder.nsenterPath, '-t', String(holder.pid), '-U', '-m', '-n', '-i', '-u', '--preserve-credentials', '--'];
  const isolation = holder === undefined ? [...RUN_NAMESPACE_FLAGS, ...ISOLATION_FLAGS] : ISOLATION_FLAGS;
  return (argv, ctx) => {
    const writableDir = ctx.writableDir === undefined ? undefined : realpathOr(ctx.writableDir);
    const mounts = mountFlags({ ...plan, stateDir: realpathOr(ctx.stateDir), writableDir });
    return [...prefix, bwrapPath, ...mounts, ...isolation, '--chdir', ctx.cwd, '--', ...argv];
  };
}

interface MountPlan {
  workDir: string;
  stateDir: string;
  writableDir: string | undefined;
  tmp: Mount[];
  home: string | undefined;
  privateHome: string | undefined;
  exposed: Array<{ from: string; at: string }>;
  hidden: Mount[];
  extra: readonly Mount[];
}

function tmpMounts(options: SandboxOptions): Mount[] {
  if (options.tmpHolder !== undefined) return [{ at: '/tmp', flags: ['--bind', options.tmpHolder.dir, '/tmp'] }];
  if (options.tmpDir !== undefined) return [{ at: '/tmp', flags: ['--bind', realpathOr(options.tmpDir), '/tmp'] }];
  const bytes = String(options.tmpBytes ?? DEFAULT_TMP_BYTES);
  return [{ at: '/tmp', flags: ['--perms', '1777', '--size', bytes, '--tmpfs', '/tmp'] }];
}

/** Where a host keeps its Unix sockets (docker.sock, D-Bus, systemd): /run, /var/run and the user's runtime directory. */
export function defaultHiddenDirs(env: { XDG_RUNTIME_DIR?: string | undefined }): string[] {
  return ['/run', '/var/run', ...(env.XDG_RUNTIME_DIR ? [env.XDG_RUNTIME_DIR] : [])];
}

/** The hidden directories as they really are, once each; those that do not exist (no /run) are left out. */
function hiddenDirectories(paths: readonly string[]): string[] {
  const found = paths
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true)
    .map(realpathOr);
  return [...new Set(found)].filter((path) => path !== '/');
}

/**
 * The mounts, shallowest first: a mount hides what an earlier one put beneath it, so the most specific path wins.
 * The working and state directories often live under /tmp and must land on top of the private /tmp; a working
 * directory inside the home must land on top of the hidden home; a home inside the working directory is hidden
 * again. At equal depth the listed order holds: a working directory that is the home itself is shown, writable.
 */
function mountFlags(plan: MountPlan): string[] {
  const { workDir, stateDir, writableDir, home, privateHome, exposed } = plan;
  const mounts: Mount[] = [
    { at: '/', flags: ['--ro-bind', '/', '/'] },
    { at: '/dev', flags: ['--dev', '/dev'] },
    { at: '/proc', flags: ['--proc', '/proc'] },
    ...plan.tmp,
    ...plan.hidden,
    ...(home === undefined
      ? []
      : [{ at: home, flags: privateHome === undefined ? ['--tmpfs', home] : ['--bind', privateHome, home] }]),
    ...exposed.map(({ from, at }) => ({ at, flags: ['--ro-bind', from, at] })),
    { at: workDir, flags: ['--bind', workDir, workDir] },
    ...plan.extra,
    // Already read-only when it lies in a read-only directory (the run's): one mount less per command.
    ...(exposed.some(({ at }) => stateDir.startsWith(`${at}/`))
      ? []
      : [{ at: stateDir, flags: ['--ro-bind', stateDir, stateDir] }]),
    ...(writableDir === undefined ? [] : [{ at: writableDir, flags: ['--bind', writableDir, writableDir] }]),
  ];
  const ordered = mounts
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.at) - depth(b.mount.at) || a.index - b.index);
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

/**
 * `path` is the PATH to find bwrap on; the probe's scratch directory is made in `scratchParent`, the run's own
 * directory, so that a run killed while it probes leaves nothing that the next run's sweep does not remove.
 */
export async function probeSandbox(path: string, scratchParent: string): Promise<SandboxProbe> {
  const bwrapPath = await findExecutable('bwrap', path);
  if (bwrapPath === undefined) {
    return { ok: false, message: `--sandbox needs bubblewrap (bwrap), which is not on PATH.\n${INSTALL_HINT}` };
  }
  const scratch = await mkdtemp(join(scratchParent, 'agent-sandbox-probe-'));
  try {
    // A host /tmp here: whether this bubblewrap can also bound a tmpfs is the run's /tmp holder's question.
    const argv = sandboxWrap(bwrapPath, scratch, { tmpDir: scratch })(['sh', '-c', 'exit 0'], {
      cwd: scratch,
      stateDir: scratch,
    });
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

export async function findExecutable(name: string, searchPath: string): Promise<string | undefined> {
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
  const result = await $({
    nothrow: true,
    quiet: true,
    timeout: PROBE_TIMEOUT_MS,
    stdio: ['ignore', 'ignore', 'pipe'],
  })`${argv}`;
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
