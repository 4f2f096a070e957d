// What lies beyond the sandbox's files: the host's Unix sockets, the disk behind /tmp. An attacker inside reaches for
// each. (The descriptors the agent itself inherited: inherited-descriptors.test.ts.)
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answer, bash, tempDir, toolResults } from '../support/run-agent.js';
import { useServer } from '../support/use-server.js';
import { bwrapPath, outsideTmp, runSandboxed } from './attack-support.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A Unix socket server that counts who connects; undefined where the path cannot be listened on (no /run, not root). */
async function socketServer(path: string): Promise<{ path: string; connections: () => number } | undefined> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end('host\n');
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, resolve);
    });
  } catch {
    return undefined;
  }
  servers.push(server);
  return { path, connections: () => connections };
}

const connectWithPerl = (path: string): string =>
  `perl -MIO::Socket::UNIX -e '$s = IO::Socket::UNIX->new(Peer => $ARGV[0]); print $s ? "CONNECTED\\n" : "refused: $!\\n"' ${JSON.stringify(path)}`;

describe.skipIf(bwrapPath === undefined)(`--sandbox: nothing of the host beyond its files`, () => {
  const serve = useServer();

  it('no host socket: not under /run, not in XDG_RUNTIME_DIR, not in the abstract namespace, not the loopback', async () => {
    const runtimeDir = outsideTmp('agent-runtime-');
    const tag = `agent-redteam-${process.pid}-${Date.now()}`;
    const targets = [
      await socketServer(join(runtimeDir, 'bus')),
      await socketServer(`/run/${tag}.sock`),
      await socketServer(`\0${tag}`),
    ].filter((target) => target !== undefined);
    let tcpConnections = 0;
    const tcp = createServer((socket) => {
      tcpConnections++;
      socket.end();
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    servers.push(tcp);
    const port = (tcp.address() as AddressInfo).port;
    const tcpConnect = `perl -MIO::Socket::INET -e '$s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:${port}"); print $s ? "CONNECTED\\n" : "refused: $!\\n"'`;
    const command = [...targets.map((target) => connectWithPerl(target.path.replace('\0', '\\0'))), tcpConnect].join(
      '; ',
    );
    const s = await serve([bash(`${command}; ls /run /var/run | head -5; true`), answer('done')]);
    const run = await runSandboxed(['go'], s.url, { cwd: tempDir(), env: { XDG_RUNTIME_DIR: runtimeDir } });
    expect(run.code).toBe(0);
    const output = toolResults(s.requests[1]!)[0]!.content;
    expect(output).not.toContain('CONNECTED');
    expect(output.match(/^refused:/gm)).toHaveLength(targets.length + 1);
    expect(output).not.toContain(tag);
    for (const target of targets) expect(target.connections()).toBe(0);
    expect(tcpConnections).toBe(0);
  });

  it('/tmp is a tmpfs of bounded size: filling it fails inside, and the transcript is whole', async () => {
    const cwd = tempDir();
    const transcript = join(cwd, 'run.jsonl');
    const fill = 'head -c 64M /dev/zero > /tmp/fill; stat -c %s /tmp/fill; df -B1 --output=size /tmp | tail -1';
    const s = await serve([
      bash('echo kept > /tmp/keep'),
      bash(fill),
      bash('cat /tmp/keep; rm /tmp/fill'),
      answer('done'),
    ]);
    const run = await runSandboxed(['--sandbox-tmp-size', '16M', '--transcript', transcript, 'go'], s.url, { cwd });
    expect(run.code).toBe(0);
    const filled = toolResults(s.requests[2]!)[0]!.content;
    expect(filled).toContain('No space left on device');
    const [size, total] = filled.split('\n').slice(-2).map(Number);
    expect(size).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(total).toBe(16 * 1024 * 1024);
    expect(toolResults(s.requests[3]!)[0]!.content).toBe('kept');
    const records = readFileSync(transcript, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string });
    expect(records.at(-1)!.type).toBe('result');
  });

  it('/tmp holds 1 GiB by default', async () => {
    const s = await serve([bash('df -B1 --output=size /tmp | tail -1'), answer('done')]);
    const run = await runSandboxed(['go'], s.url, { cwd: tempDir() });
    expect(run.code).toBe(0);
    expect(toolResults(s.requests[1]!)[0]!.content.trim()).toBe(String(1024 ** 3));
  });
});
