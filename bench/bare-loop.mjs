// The floor under a turn: the smallest loop that does a turn's work — one streamed Messages request over node:http,
// the SSE read to its end, the commands spawned with an async `bash -c`, their output sent back — and nothing else
// (no SDK, guard, masking, session, limits). The benchmark runs it against the same test server and script as the
// agent, so that the agent's per-turn cost is read as a ratio to it.
//
// Usage: node bench/bare-loop.mjs   (ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY from the environment)
import { spawn } from 'node:child_process';
import http from 'node:http';

const base = new URL(process.env.ANTHROPIC_BASE_URL);
const agent = new http.Agent({ keepAlive: true });
const tools = [
  {
    name: 'bash',
    description: 'Run a bash command.',
    input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];

function post(body) {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL('/v1/messages', base),
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'x-api-key': process.env.ANTHROPIC_API_KEY,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () =>
          response.statusCode === 200 ? resolve(text) : reject(new Error(`HTTP ${response.statusCode}: ${text}`)),
        );
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** The assistant's content blocks and stop reason, from an SSE body. */
function readMessage(sse) {
  const blocks = [];
  const partial = [];
  let stopReason;
  for (const line of sse.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const event = JSON.parse(line.slice(6));
    if (event.type === 'content_block_start') {
      blocks[event.index] = event.content_block;
      partial[event.index] = '';
    } else if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') blocks[event.index].text += event.delta.text;
      else if (event.delta.type === 'input_json_delta') partial[event.index] += event.delta.partial_json;
    } else if (event.type === 'message_delta') {
      stopReason = event.delta.stop_reason;
    }
  }
  blocks.forEach((block, index) => {
    if (block.type === 'tool_use') block.input = partial[index] ? JSON.parse(partial[index]) : {};
  });
  return { content: blocks, stopReason };
}

function runBash(command) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['--norc', '--noprofile', '-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve(`${output}${code === 0 ? '' : `\n(exit ${code})`}`));
  });
}

const messages = [{ role: 'user', content: process.argv[2] ?? 'run the commands' }];
for (;;) {
  const sse = await post({ model: 'claude-sonnet-4-5', max_tokens: 4096, stream: true, tools, messages });
  const { content, stopReason } = readMessage(sse);
  messages.push({ role: 'assistant', content });
  if (stopReason !== 'tool_use') {
    process.stdout.write(
      `${content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('')}\n`,
    );
    break;
  }
  const results = [];
  for (const block of content.filter((b) => b.type === 'tool_use')) {
    results.push({
      type: 'tool_result',
      tool_use_id: block.id,
      content: (await runBash(block.input.command)) || '(no output)',
    });
  }
  messages.push({ role: 'user', content: results });
}
agent.destroy();
