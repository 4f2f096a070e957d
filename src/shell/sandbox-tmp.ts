// The run's /tmp under --sandbox: one tmpfs of bounded size for the whole run, so that files last from one command to
// the next, and so that filling it fills memory the size allows, never the disk the session and transcript are
// written to. A process that does nothing (cat, waiting on a pipe only the agent holds) keeps the tmpfs mounted in a
// mount namespace of its own; each command's sandbox is made from inside that namespace (nsenter). The holder dies
// with the agent however the agent ends: bubblewrap's --die-with-parent, and the pipe's end. Its network (a loopback
// only), IPC and UTS namespaces are the commands' too.
import { spawn, type ChildProcess } from 'node:child_process';
import { RUN_NAMESPACE_FLAGS, type TmpHolder } from './sandbox.js';

const START_TIMEOUT_MS = 10_000;

interface RunningTmpHolder extends TmpHolder {
  stop(): void;
}

/** Starts the holder of a tmpfs of `bytes` at `dir` (an empty directory); a string says why it could not. */
export async function startTmpHolder(
  bwrapPath: string,
  nsenterPath: string,
  dir: string,
  bytes: number,
): Promise<RunningTmpHolder | string> {
  const args = [
    '--unshare-user',
    ...RUN_NAMESPACE_FLAGS,
    '--die-with-parent',
    '--dev-bind',
    '/',
    '/',
    '--perms',
    '1777',
    '--size',
    String(bytes),
    '--tmpfs',
    dir,
    // No pid namespace: the pid the shell prints is the one nsenter needs. It prints it once the mounts are made.
    '--',
    'sh',
    '-c',
    'echo $$; exec cat',
  ];
  let child: ChildProcess;
  try {
    child = spawn(bwrapPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const started = await firstLine(child);
  if (typeof started === 'string') {
    child.kill('SIGKILL');
    return started;
  }
  // Nothing of the holder keeps the agent alive; its stdin stays open for as long as the agent lives.
  child.stdout?.destroy();
  child.stderr?.destroy();
  child.stdin?.on('error', () => {});
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  child.unref();
  return {
    pid: started.pid,
    dir,
    nsenterPath,
    stop: () => {
      child.stdin?.destroy();
      child.kill('SIGKILL');
    },
  };
}

/** The pid the holder printed, or why it never did (its first line of errors, or its exit). */
function firstLine(child: ChildProcess): Promise<{ pid: number } | string> {
  return new Promise((resolve) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => resolve('the tmpfs holder did not start in time'), START_TIMEOUT_MS);
    const settle = (value: { pid: number } | string): void => {
      clearTimeout(timer);
      resolve(value);
    };
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n');
      if (line.length > 1) settle(/^\d+$/.test(line[0]!) ? { pid: Number(line[0]) } : `unexpected output: ${line[0]}`);
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.once('error', (error) => settle(error.message));
    child.once('exit', (code) => settle(err.trim().split('\n')[0] || `exit status ${String(code)}`));
  });
}
