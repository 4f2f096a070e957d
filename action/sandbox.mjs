// sandbox: 'true' runs every command under bubblewrap, which only Linux has. On Linux, bubblewrap is installed if
// missing (with apt-get, where there is one), and on a GitHub-hosted runner only, the AppArmor switch that keeps
// unprivileged user namespaces from bubblewrap is turned off: a self-hosted runner is someone's machine.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const OS_NAMES = { linux: 'Linux', darwin: 'macOS', win32: 'Windows' };

export function runnerOs(env) {
  return env.RUNNER_OS || OS_NAMES[process.platform] || process.platform;
}

/** Returns an error message, or undefined once the sandbox can run. Its script's output goes to `write`. */
export function prepareSandbox(env, actionRoot, write) {
  const os = runnerOs(env);
  if (os !== 'Linux') {
    return `sandbox: 'true' needs Linux (bubblewrap), and this runner is ${os}. Run on a Linux runner, or set sandbox: 'false' to run commands unconfined (only for trusted tasks and repositories).`;
  }
  const script = join(actionRoot, 'action', 'install-bubblewrap.sh');
  const run = spawnSync('bash', ['--noprofile', '--norc', script], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  write(
    `${run.stdout ?? ''}${run.stderr ?? ''}`
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('::'))
      .map((line) => `${line}\n`)
      .join(''),
  );
  if (run.error) return `cannot prepare the sandbox: ${run.error.message}`;
  if (run.status !== 0) {
    const last = (run.stderr ?? '').trim().split('\n').at(-1);
    return last
      ? `cannot prepare the sandbox: ${last}`
      : `cannot prepare the sandbox: its set-up exited with status ${run.status}.`;
  }
  return undefined;
}
