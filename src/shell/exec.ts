import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { OutputCleaner } from './clean-output.js';
import { OutputCapture, type CapturedOutput } from './output-capture.js';
import { ProcessGroups } from './process-groups.js';
import { descriptorsWithoutCloseOnExec } from './inherited-descriptors.js';
import { killMarked, markingCommand, newProcessMark, processStartTicks, type ProcessMark } from './process-mark.js';
import { DirectoryRecord } from './directory-record.js';
import { commandArgument, filesIntact, shellFiles, writePrologue, type ShellFiles } from './prologue.js';
import type { TextFilter } from './secret-mask.js';
import { FORCED, nonInteractiveEnv, heldBackSettings, shellStartEnv, type PassEnv } from './shell-env.js';
import { runInGroup } from './spawn-group.js';
import type { GroupRunResult, StreamName } from './spawn-group.js';
import { type CommandReport, type ExecResult, failure, report } from './command-report.js';
import { nowMs } from '../clock.js';

export interface ShellOptions {
  /** The run's working directory (absolute). */
  runCwd: string;
  /** The environment the commands start from, before secrets are withheld (the run's, never read here). */
  env: Readonly<Record<string, string | undefined>>;
  defaultTimeoutSec: number;
  maxTimeoutSec: number;
  /** Characters of output that reach the model (30,000 by default). */
  maxChars?: number;
  /** Where full-output files go (os.tmpdir() by default); one file per command that overflowed. */
  spillDir?: string;
  /**
   * The caller removes spillDir, with everything in it, once the shell is disposed: dispose() then leaves the shell's
   * private directory, which it made there, to that removal instead of walking it a first time.
   */
  spillDirRemovedAfter?: boolean;
  /** What every process the commands start carries (newProcessMark() when not given): a run's is in its record. */
  mark?: ProcessMark;
  /**
   * Sandbox wrapper: receives ['bash', ..., '-c', script] and returns the argv to spawn instead.
   * `stateDir` is the shell's private bookkeeping directory, which a sandbox shows read-only, but for `writableDir`
   * inside it, where the shell records its directory.
   */
  wrap?: (argv: string[], ctx: { cwd: string; stateDir: string; writableDir: string }) => string[];
  /** Runs after each command, once nothing it started runs any more; returns notes for the model. */
  afterCommand?: () => string[];
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

/** A command ready to spawn. */
interface ReadyCommand {
  cwd: string;
  files: ShellFiles;
  /** Where the shell of these files records its directory. */
  record: DirectoryRecord;
  /** A long command, fed to the shell's stdin. */
  stdin: string | null;
  argv: string[];
}

const DEFAULT_MAX_CHARS = 30_000;
const KILL_GRACE_MS = 1_500;
/** An interrupted run must end within 2 s, so an aborted command gets a shorter grace than a timed-out one. */
const ABORT_GRACE_MS = 500;
const DRAIN_MS = 150;

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
  /** What every process the commands start carries, so killAll finds those that left their group. */
  private readonly mark: ProcessMark;
  private files: ShellFiles | null = null;
  /**
   * What the commands' shells inherit beyond stdio, fixed for the run (Node opens its own descriptors close-on-exec).
   * Read as the shell is made, which a run does while its first request is out, rather than before the first command.
   */
  private readonly inheritedDescriptors: readonly number[] | undefined;
  private record: DirectoryRecord | undefined;
  private environment:
    | { cwd: string; env: Readonly<Record<string, string>>; start: Readonly<Record<string, string>> }
    | undefined;
  private commandCount = 0;
  /** Commands started before the last sweep for marked processes; a second sweep finds no one new. */
  private sweptCommands = 0;

  constructor(private readonly options: ShellOptions) {
    this.runCwd = path.resolve(options.runCwd);
    this.currentCwd = this.runCwd;
    this.maxChars = Math.max(1_000, Math.floor(options.maxChars ?? DEFAULT_MAX_CHARS));
    this.mark = options.mark ?? newProcessMark();
    this.inheritedDescriptors = descriptorsWithoutCloseOnExec();
  }

  get cwd(): string {
    return this.currentCwd;
  }

  /**
   * The environment the next command runs with, apart from the shell's own bookkeeping (BASH_ENV, its mark). Kept
   * while the directory stays the same: the guard reads it before every command, and building it costs more than
   * judging the command.
   */
  commandEnvironment(cwd: string = this.currentCwd): Readonly<Record<string, string>> {
    return this.environmentIn(cwd).env;
  }

  private environmentIn(cwd: string): NonNullable<Shell['environment']> {
    if (this.environment?.cwd !== cwd) {
      const env = nonInteractiveEnv(this.options.env, cwd, this.options.passEnv);
      this.environment = { cwd, env, start: shellStartEnv(env) };
    }
    return this.environment;
  }

  async run(command: string, runOptions: RunOptions = {}): Promise<ExecResult> {
    const startedAt = nowMs();
    const finish = (report: CommandReport): ExecResult => ({
      ...report,
      cwd: this.currentCwd,
      durationMs: Math.round(nowMs() - startedAt),
    });
    const notes: string[] = [];
    const prepared = this.prepare(command, runOptions, notes);
    if ('refused' in prepared) return finish(prepared.refused);
    const timeoutSec = this.effectiveTimeout(runOptions.timeoutSec);
    const { outcome, captured } = await this.execute(prepared, timeoutSec, runOptions);
    // A shell that never started recorded nothing: what the file holds is the previous command's.
    const recorded = outcome.spawnError === null ? prepared.record.read() : null;
    this.currentCwd = recorded ?? prepared.cwd;
    notes.push(...(this.options.afterCommand?.() ?? []));
    return finish(report(outcome, captured, notes, timeoutSec));
  }

  /**
   * SIGKILL every process group this shell started that may still be alive, and every process that left its group
   * but still carries this shell's mark. Synchronous, idempotent.
   */
  killAll(): void {
    this.groups.killAll();
    if (this.commandCount > this.sweptCommands) {
      // Everything that carries the mark descends from this process, so started no earlier than it did.
      killMarked(this.mark, processStartTicks('self') ?? 0);
      this.sweptCommands = this.commandCount;
    }
    for (const stream of this.lingering) stream.destroy();
    this.lingering.clear();
  }

  /** killAll, then remove the private state directory (spill files stay: the model knows their paths). */
  async dispose(): Promise<void> {
    this.killAll();
    const dir = this.files?.stateDir;
    this.files = null;
    this.record?.close();
    // Synchronous: the promise API's module and the thread pool's round trips cost more than these few files.
    if (dir && !this.options.spillDirRemovedAfter) rmSync(dir, { recursive: true, force: true });
  }

  /** The directory, bookkeeping scripts and argv of the command, or why it cannot run. */
  private prepare(command: string, runOptions: RunOptions, notes: string[]): ReadyCommand | { refused: CommandReport } {
    const cwd = this.startDirectory(notes);
    if (cwd === null) {
      return { refused: failure(`cannot run the command: the working directory ${this.runCwd} no longer exists`) };
    }
    if (runOptions.signal?.aborted) return { refused: { ...failure('(not run: the run was aborted)'), aborted: true } };
    if (command.includes('\0')) return { refused: failure('cannot run the command: it contains a NUL character') };
    try {
      const { files, record } = this.ensureFiles();
      const { argument, stdin } = commandArgument(command);
      this.commandCount++;
      // No start-up files, whatever bash takes its stdin for: only BASH_ENV, the prologue.
      const bashArgv = ['bash', '--norc', '--noprofile', '-c', argument];
      const { stateDir, writableDir } = files;
      const argv = this.options.wrap ? this.options.wrap(bashArgv, { cwd, stateDir, writableDir }) : bashArgv;
      return { cwd, files, record, stdin, argv };
    } catch (error) {
      return { refused: failure(`cannot run the command: ${error instanceof Error ? error.message : String(error)}`) };
    }
  }

  /** Runs the prepared command in its own process group, feeding its cleaned output into a bounded capture. */
  private async execute(
    { cwd, files, stdin, argv }: ReadyCommand,
    timeoutSec: number,
    runOptions: RunOptions,
  ): Promise<{ outcome: GroupRunResult; captured: CapturedOutput }> {
    const capture = new OutputCapture({
      maxChars: this.maxChars,
      spillDir: this.options.spillDir ?? os.tmpdir(),
      ...(runOptions.onOutput ? { onOutput: runOptions.onOutput } : {}),
      ...(this.options.createMask ? { mask: this.options.createMask() } : {}),
    });
    const cleaners: Record<StreamName, OutputCleaner> = { stdout: new OutputCleaner(), stderr: new OutputCleaner() };
    // Before and after: a group left behind that empties while the model thinks is forgotten before the command,
    // during which an interrupt may signal every group still tracked. Both cost nothing when none is left behind.
    this.groups.prune();
    let outcome: GroupRunResult;
    try {
      outcome = await runInGroup({
        argv,
        cwd,
        ...(stdin === null ? {} : { stdin }),
        // The shell's prologue exports the rest of what commandEnvironment() holds.
        env: { ...this.environmentIn(cwd).start, BASH_ENV: files.prologue, [this.mark.envName]: this.mark.envValue },
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
    }
    capture.write(cleaners.stdout.end());
    capture.write(cleaners.stderr.end());
    this.keepLingering(outcome.lingering);
    this.groups.prune();
    return { outcome, captured: capture.finish() };
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

  /**
   * The state directory and its prologue. A command that removed or replaced any of it (possible only outside a
   * sandbox) gets a fresh directory rather than a file written again where it could have planted a link.
   */
  private ensureFiles(): { files: ShellFiles; record: DirectoryRecord } {
    if (this.files !== null && this.record !== undefined && filesIntact(this.files))
      return { files: this.files, record: this.record };
    // Resolved, so a sandbox that binds it by its real path finds BASH_ENV at the same path.
    // Beside the spill files, so a caller that removes that directory on a hard exit removes this one too.
    const files = shellFiles(
      realpathSync(mkdtempSync(path.join(this.options.spillDir ?? os.tmpdir(), 'agent-shell-'))),
    );
    writePrologue(files, {
      exports: FORCED,
      heldBack: heldBackSettings(this.commandEnvironment()),
      mark: markingCommand(this.mark),
      userBashEnv: this.options.env.BASH_ENV,
      inheritedDescriptors: this.inheritedDescriptors,
    });
    this.record?.close();
    this.files = files;
    this.record = new DirectoryRecord(files.cwd);
    return { files, record: this.record };
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
