import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from './config.js';
import type { EventSink } from './events.js';
import { UsageError } from './outcome.js';
import type { RunSecrets } from './secrets.js';
import type { Shell } from './shell/exec.js';
import { RUN_DIR_PREFIX } from './shell/run-dir-name.js';

/** The run's private directory: full-output files go here, and under --sandbox it is the run's /tmp. */
interface RunDir {
  /** Where the directory is made, resolved. */
  parent(): string;
  /** The directory, made on the first call. */
  path(): string;
  /** Removes it, if it was made. */
  remove(): void;
}

export function privateRunDir(): RunDir {
  let dir: string | undefined;
  return {
    parent: () => realpathSync(tmpdir()),
    path: () => (dir ??= realpathSync(mkdtempSync(join(tmpdir(), RUN_DIR_PREFIX)))),
    remove: () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface DeferredShell {
  /** The shell, opened on the first call; every call gives the same one. */
  open(): Promise<Shell>;
  /** The shell once it is open, for the synchronous clean-up on exit. */
  opened(): Shell | undefined;
}

/**
 * The run's shell: under the sandbox when asked, with secrets withheld and masked, its marks registered. What can
 * refuse the run (the sandbox probe) and what is said about it happen now. Without the sandbox, the shell, its module,
 * the run's directory and its record in the state directory wait for open(), so that the first request does not wait
 * for them; the directory is made just before the record that lets a later run remove it.
 */
export async function prepareShell(
  config: Config,
  secrets: RunSecrets,
  runDir: RunDir,
  runRecords: string | undefined,
  emit: EventSink,
  registerCleanup: (cleanup: () => void) => void,
): Promise<DeferredShell> {
  const sandbox = config.sandbox ? await sandboxFor(config, runDir.path(), emit) : undefined;
  if (sandbox) registerCleanup(sandbox.stop);
  emit({ type: 'notice', message: secrets.notice });
  let shell: Shell | undefined;
  let opening: Promise<Shell> | undefined;
  const plan: ShellPlan = { config, runDir, runRecords, secrets, sandbox };
  const open = () => (opening ??= startShell(plan).then((started) => (shell = started)));
  // The sandbox's directory exists already: its record goes in at once.
  if (sandbox) await open();
  return { open, opened: () => shell };
}

interface ShellPlan {
  config: Config;
  runDir: RunDir;
  runRecords: string | undefined;
  secrets: RunSecrets;
  sandbox: RunSandbox | undefined;
}

type RunSandbox = Exclude<
  Awaited<ReturnType<typeof import('./shell/sandbox-setup.js').setUpSandbox>>,
  { unavailable: string }
>;

async function startShell({ config, runDir, runRecords, secrets, sandbox }: ShellPlan): Promise<Shell> {
  const [{ Shell }, { sweepDeadRuns }] = await Promise.all([
    import('./shell/exec.js'),
    import('./shell/mark-registry.js'),
  ]);
  // Commands of earlier runs that were killed outright (SIGKILL) and could not clean up after themselves. Then the
  // run's directory, right before the shell records it: a run killed in between leaves a directory no sweep finds.
  if (runRecords) sweepDeadRuns(runRecords, runDir.parent());
  const spillDir = runDir.path();
  return new Shell({
    ...(runRecords ? { markRegistry: runRecords } : {}),
    runCwd: config.cwd,
    env: config.env.variables,
    defaultTimeoutSec: config.timeoutSec,
    maxTimeoutSec: config.maxTimeoutSec,
    spillDir,
    // run.ts removes the run's directory right after disposing of the shell, and a hard exit removes it too.
    spillDirRemovedAfter: true,
    ...(sandbox ? { wrap: sandbox.wrap, afterCommand: sandbox.afterCommand } : {}),
    passEnv: secrets.passEnv,
    ...(secrets.createMask ? { createMask: secrets.createMask } : {}),
  });
}

async function sandboxFor(config: Config, runDir: string, emit: EventSink): Promise<RunSandbox> {
  const { setUpSandbox } = await import('./shell/sandbox-setup.js');
  const warn = (message: string): void => emit({ type: 'warning', message });
  const { cwd, sandboxTmpBytes: tmpBytes, sandboxExpose: expose } = config;
  const { path, home, variables } = config.env;
  const sandbox = await setUpSandbox({
    cwd,
    runDir,
    stateDir: dirname(config.session.dir),
    tmpBytes,
    expose,
    path,
    home,
    runtimeDir: variables.XDG_RUNTIME_DIR,
    warn,
  });
  if ('unavailable' in sandbox) throw new UsageError(sandbox.unavailable);
  return sandbox;
}
