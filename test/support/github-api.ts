// A stand-in for the GitHub REST API's collaborator permission endpoint
// (GET /repos/{owner}/{repo}/collaborators/{username}/permission), on loopback. Each user's answer is scripted:
// a permission (with its role name), an HTTP status, or no answer at all.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from './listen.js';

export type PermissionAnswer = { permission: string; role_name: string } | { status: number } | 'hang';

export interface GitHubApi {
  url: string;
  requests: Array<{ path: string; authorization: string | undefined }>;
  close(): Promise<void>;
}

function reply(answer: PermissionAnswer | undefined, username: string, res: ServerResponse): void {
  if (answer === 'hang') return;
  if (answer === undefined) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Not Found' }));
  } else if ('status' in answer) {
    res
      .writeHead(answer.status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: `status ${answer.status}` }));
  } else {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ ...answer, user: { login: username } }));
  }
}

export async function startGitHubApi(
  repository: string,
  answers: Record<string, PermissionAnswer>,
): Promise<GitHubApi> {
  const requests: GitHubApi['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const match = new RegExp(`^/repos/${repository}/collaborators/([^/]+)/permission$`).exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    const username = decodeURIComponent(match[1]!);
    reply(answers[username], username, res);
  });
  const port = await listenOnLoopback(server, sockets);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((done) => server.close(() => done()));
    },
  };
}
