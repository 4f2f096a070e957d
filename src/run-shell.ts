import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import type { Config } from './config.js';
import type { EventSink } from './events.js';
import { UsageError } from './outcome.js';
import type { RunSecrets } from './secrets.js';
import type { Shell } from './shell/exec.js';
import type { MadeRunDir } from './shell/run-dir.js';

/** The run's private directory: full-output files go here, and under --sandbox it is the run's /tmp and home. */
interface RunDir {
  /** The directory, made on the first call after a sweep of dead runs and after the record that names it. */
  make(): Promise<MadeRunDir>;
  /** Removes it, then its record, if it was made. Synchronous, for the clean-up on exit. */
  remove(): void;
}

/** `runRecords` is the state directory's record of running runs, when there is one. */
export function privateRunDir(runRecords: string | undefined): RunDir {
  let made: MadeRunDir | undefined;
  let making: Promise<MadeRunDir> | undefined;
  return {
    make: () =>
      (making ??= import('./shell/run-dir.js').then(
        ({ makeRunDir }) => (made = makeRunDir(realpathSync(tmpdir()), runRecords)),
      )),
    remove: () => made?.remove(),
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
 * for them.
 */
export async function prepareShell(
  config: Config,
  secrets: RunSecrets,
  runDir: RunDir,
  emit: EventSink,
  registerCleanup: (cleanup: () => void) => void,
): Promise<DeferredShell> {
  const sandbox = config.sandbox ? await sandboxFor(config, (await runDir.make()).path, emit) : undefined;
  if (sandbox) registerCleanup(sandbox.stop);
  emit({ type: 'notice', message: secrets.notice });
  let shell: Shell | undefined;
  let opening: Promise<Shell> | undefined;
  const plan: ShellPlan = { config, runDir, secrets, sandbox };
  const open = () => (opening ??= startShell(plan).then((started) => (shell = started)));
  // The sandbox stands ready: the shell may as well.
  if (sandbox) await open();
  return { open, opened: () => shell };
}

interface ShellPlan {
  config: Config;
  runDir: RunDir;
  secrets: RunSecrets;
  sandbox: RunSandbox | undefined;
}

type RunSandbox = Exclude<
  Awaited<ReturnType<typeof import('./shell/sandbox-setup.js').setUpSandbox>>,
  { unavailable: string }
>;

async function startShell({ config, runDir, secrets, sandbox }: ShellPlan): Promise<Shell> {
  // Making the directory sweeps first what runs killed outright (SIGKILL) left: their commands, their directories.
  const [{ Shell }, made] = await Promise.all([import('./shell/exec.js'), runDir.make()]);
  return new Shell({
    mark: made.mark,
    runCwd: config.cwd,
    env: config.env.variables,
    defaultTimeoutSec: config.timeoutSec,
    maxTimeoutSec: config.maxTimeoutSec,
    spillDir: made.path,
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
