// `npm run demo`: a first run with no API key. It starts the scripted test server (test/support/demo-server.ts),
// runs bin/agent against it in this directory, and exits with the agent's status.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const server = spawn(process.execPath, ['--import', 'tsx', 'test/support/demo-server.ts'], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const [url] = await Promise.race([
  createInterface({ input: server.stdout })
    [Symbol.asyncIterator]()
    .next()
    .then(({ value }) => [value]),
  new Promise((_, reject) => server.once('exit', (code) => reject(new Error(`the demo server exited (${code})`)))),
]);
const words = process.argv.slice(2);
const agent = spawn(
  process.execPath,
  [`${root}bin/agent`, ...(words.length > 0 ? words : ['What is in this directory?'])],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: 'demo-key-no-real-key-needed' },
  },
);
agent.on('exit', (code, signal) => {
  server.kill('SIGTERM');
  process.exitCode = code ?? (signal === 'SIGINT' ? 130 : 1);
});
