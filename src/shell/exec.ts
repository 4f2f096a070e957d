import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { OutputCleaner } from './clean-output.js';
import { OutputCapture } from './output-capture.js';
import { killMarked, ProcessGroups } from './process-groups.js';
import type { TextFilter } from './secret-mask.js';
import { nonInteractiveEnv, type PassEnv } from './shell-env.js';
import { runInGroup } from './spawn-group.js';
import type { GroupRunResult, StreamName } from './spawn-group.js';

export interface ShellOptions {
  /** The run's working directory (absolute). */
  runCwd: string;
  defaultTimeoutSec: number;
  maxTimeoutSec: number;
  /** Characters of output that reach the model (30,000 by default). */
  maxChars?: number;
  /** Where full-output files go (os.tmpdir() by default); one file per command that overflowed. */
  spillDir?: string;
  /**
   * Sandbox wrapper: receives ['bash', '-c', script] and returns the argv to spawn instead.
   * `stateDir` is the shell's private bookkeeping directory; a sandbox must bind it writable.
   */
  wrap?: (argv: string[], ctx: { cwd: string; stateDir: string }) => string[];
  /** Which secret-looking variables reach the commands anyway (--pass-env); none by default. */
  passEnv?: PassEnv;
  /** A fresh secret mask for each command's output; everything downstream sees only masked text. */
  createMask?: () => TextFilter;
}

export interface RunOptions {
  /** The model's requested timeout, clamped to [1, maxTimeoutSec]; defaultTimeoutSec when absent. */
  timeoutSec?: number;
  /** Abort kills the command's group at once (TERM, then KILL) and resolves with aborted: true. */
  signal?: AbortSignal;
  /** Cleaned output chunks as they arrive, for a live preview. */
  onOutput?: (text: string) => void;
}

export interface ExecResult {
  /** What the model sees: cleaned, merged output, truncated head + tail, then status lines. */
  text: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Timed out, aborted, or could not start. A non-zero exit alone is not an error. */
  isError: boolean;
  /** Directory for the next command. */
  cwd: string;
  /** Characters the command printed, before truncation. */
  outputChars: number;
  spillPath: string | null;
  durationMs: number;
}

/** Per-command bookkeeping files in the shell's private state directory. */
interface ScriptFiles {
  prologue: string;
  cwd: string;
  command: string;
}

const DEFAULT_MAX_CHARS = 30_000;
const KILL_GRACE_MS = 1_500;
/** An interrupted run must end within 2 s, so an aborted command gets a shorter grace than a timed-out one. */
const ABORT_GRACE_MS = 500;
const DRAIN_MS = 150;
/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); longer commands go through a file. */
const MAX_INLINE_COMMAND_BYTES = 100_000;
/** Set in every command's environment to this shell's id, so killAll finds processes that left their group. */
const SHELL_ID_VARIABLE = 'AGENT_SHELL_ID';

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

export class Shell {
  private currentCwd: string;
  private readonly runCwd: string;
  private readonly maxChars: number;
  private readonly groups = new ProcessGroups();
  private readonly lingering = new Set<Readable>();
  private stateDir: string | null = null;
  private commandCount = 0;
  private readonly id = randomBytes(8).toString('hex');

  constructor(private readonly options: ShellOptions) {
    this.runCwd = path.resolve(options.runCwd);
    this.currentCwd = this.runCwd;
    this.maxChars = Math.max(1_000, Math.floor(options.maxChars ?? DEFAULT_MAX_CHARS));
  }

  get cwd(): string {
    return this.currentCwd;
  }

  async run(command: string, runOptions: RunOptions = {}): Promise<ExecResult> {
    const startedAt = performance.now();
    const finish = (partial: Omit<ExecResult, 'cwd' | 'durationMs'>): ExecResult => ({
      ...partial,
      cwd: this.currentCwd,
      durationMs: Math.round(performance.now() - startedAt),
    });
    const notes: string[] = [];
    const cwd = this.startDirectory(notes);
    if (cwd === null) {
      return finish(failure(`cannot run the command: the working directory ${this.runCwd} no longer exists`));
    }
    if (runOptions.signal?.aborted) {
      return finish({ ...failure('(not run: the run was aborted)'), aborted: true });
    }
    if (command.includes('\0')) {
      return finish(failure('cannot run the command: it contains a NUL character'));
    }

    const id = ++this.commandCount;
    let files: ScriptFiles;
    let argv: string[];
    try {
      const stateDir = this.ensureStateDir();
      files = {
        prologue: path.join(stateDir, `prologue-${id}.sh`),
        cwd: path.join(stateDir, `cwd-${id}`),
        command: path.join(stateDir, `command-${id}.sh`),
      };
      const bashArgv = ['bash', '-c', this.prepareScripts(command, files)];
      argv = this.options.wrap ? this.options.wrap(bashArgv, { cwd, stateDir }) : bashArgv;
    } catch (error) {
      return finish(failure(`cannot run the command: ${error instanceof Error ? error.message : String(error)}`));
    }
    const timeoutSec = this.effectiveTimeout(runOptions.timeoutSec);

    const capture = new OutputCapture({
      maxChars: this.maxChars,
      spillDir: this.options.spillDir ?? os.tmpdir(),
      ...(runOptions.onOutput ? { onOutput: runOptions.onOutput } : {}),
      ...(this.options.createMask ? { mask: this.options.createMask() } : {}),
    });
    const cleaners: Record<StreamName, OutputCleaner> = { stdout: new OutputCleaner(), stderr: new OutputCleaner() };

    this.groups.prune();
    let outcome: GroupRunResult;
    try {
      outcome = await runInGroup({
        argv,
        cwd,
        env: { ...nonInteractiveEnv(process.env, cwd, this.options.passEnv), BASH_ENV: files.prologue, [SHELL_ID_VARIABLE]: this.id },
        timeoutMs: timeoutSec * 1000,
        ...(runOptions.signal ? { signal: runOptions.signal } : {}),
        killGraceMs: KILL_GRACE_MS,
        abortGraceMs: ABORT_GRACE_MS,
        drainMs: DRAIN_MS,
        onData: (stream, bytes) => capture.write(cleaners[stream].push(bytes)),
        onSpawn: (pgid) => this.groups.track(pgid),
      });
    } catch (error) {
      capture.closeSpill();
      throw error;
    } finally {
      removeQuietly(files.prologue);
      removeQuietly(files.command);
    }
    capture.write(cleaners.stdout.end());
    capture.write(cleaners.stderr.end());
    this.keepLingering(outcome.lingering);
    this.groups.prune();

    this.currentCwd = readFinalDirectory(files.cwd) ?? cwd;
    const captured = capture.finish();
    const status = statusLine(outcome, timeoutSec);
    const lines = [captured.body === '' ? '(no output)' : captured.body.replace(/\n$/, ''), ...notes];
    if (status) lines.push(status);
    return finish({
      text: lines.join('\n'),
      exitCode: outcome.exitCode,
      signal: outcome.signal,
      timedOut: outcome.timedOut,
      aborted: outcome.aborted,
      isError: outcome.timedOut || outcome.aborted || outcome.spawnError !== null,
      outputChars: captured.outputChars,
      spillPath: captured.spillPath,
    });
  }

  /**
   * SIGKILL every process group this shell started that may still be alive, and every process that left its group
   * but still carries this shell's id. Synchronous, idempotent.
   */
  killAll(): void {
    this.groups.killAll();
    killMarked(SHELL_ID_VARIABLE, this.id);
    for (const stream of this.lingering) stream.destroy();
    this.lingering.clear();
  }

  /** killAll, then remove the private state directory (spill files stay: the model knows their paths). */
  async dispose(): Promise<void> {
    this.killAll();
    const dir = this.stateDir;
    this.stateDir = null;
    if (dir) await rm(dir, { recursive: true, force: true });
  }

  /** The directory to start in; falls back to the run's directory when the previous one vanished. */
  private startDirectory(notes: string[]): string | null {
    if (isDirectory(this.currentCwd)) return this.currentCwd;
    const vanished = this.currentCwd;
    this.currentCwd = this.runCwd;
    if (!isDirectory(this.runCwd)) return null;
    notes.push(`note: the directory ${vanished} no longer exists; this command ran in ${this.runCwd}`);
    return this.runCwd;
  }

  private ensureStateDir(): string {
    if (this.stateDir === null || !isDirectory(this.stateDir)) {
      // Resolved, so a sandbox that binds it by its real path finds BASH_ENV at the same path.
      // Beside the spill files, so a caller that removes that directory on a hard exit removes this one too.
      this.stateDir = realpathSync(mkdtempSync(path.join(this.options.spillDir ?? os.tmpdir(), 'agent-shell-')));
    }
    return this.stateDir;
  }

  /**
   * The command runs as `bash -c command`, untouched, so bash reports its errors and line numbers
   * as usual. The bookkeeping runs first through BASH_ENV, which a non-interactive bash sources
   * before the command (even before parsing it, so syntax errors are merged too): merge stderr
   * into stdout, record the final directory on exit, and hand the user's own BASH_ENV (if any)
   * back to the command and its children.
   */
  private prepareScripts(command: string, files: ScriptFiles): string {
    const userBashEnv = process.env.BASH_ENV;
    const prologue = [
      userBashEnv ? `export BASH_ENV=${shellQuote(userBashEnv)}` : 'unset BASH_ENV',
      'exec 2>&1',
      ...(userBashEnv ? ['. "$BASH_ENV"'] : []),
      `trap ${shellQuote(`builtin pwd > ${shellQuote(files.cwd)}`)} EXIT`,
      '',
    ].join('\n');
    writeFileSync(files.prologue, prologue, { mode: 0o600 });
    if (Buffer.byteLength(command) <= MAX_INLINE_COMMAND_BYTES) return command;
    writeFileSync(files.command, command, { mode: 0o600 });
    return `. ${shellQuote(files.command)}`;
  }

  private effectiveTimeout(requested: number | undefined): number {
    if (requested === undefined || !Number.isFinite(requested)) return this.options.defaultTimeoutSec;
    return Math.min(Math.max(requested, 1), this.options.maxTimeoutSec);
  }

  private keepLingering(streams: Readable[]): void {
    for (const stream of streams) {
      this.lingering.add(stream);
      stream.once('close', () => this.lingering.delete(stream));
    }
  }
}

function failure(text: string): Omit<ExecResult, 'cwd' | 'durationMs'> {
  return {
    text,
    exitCode: null,
    signal: null,
    timedOut: false,
    aborted: false,
    isError: true,
    outputChars: 0,
    spillPath: null,
  };
}

function statusLine(outcome: GroupRunResult, timeoutSec: number): string | null {
  if (outcome.spawnError !== null) return `failed to start the shell: ${outcome.spawnError}`;
  if (outcome.timedOut) return `timed out after ${timeoutSec} s (the process group was killed)`;
  if (outcome.aborted) return 'aborted (the process group was killed)';
  if (outcome.signal !== null) return `killed by signal ${outcome.signal}`;
  if (outcome.exitCode !== null && outcome.exitCode !== 0) return `exit code: ${outcome.exitCode}`;
  return null;
}

/** The directory the shell ended in, as its EXIT trap recorded it; null when it did not get to. */
function readFinalDirectory(file: string): string | null {
  let recorded: string;
  try {
    recorded = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  removeQuietly(file);
  const dir = recorded.endsWith('\n') ? recorded.slice(0, -1) : recorded;
  return path.isAbsolute(dir) ? dir : null;
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone.
  }
}
