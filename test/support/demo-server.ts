// A scripted run to watch by hand in a terminal, no API key needed:
//   npx tsx test/support/demo-server.ts            prints the server's URL, serves until Ctrl-C
//   ANTHROPIC_BASE_URL=<url> ANTHROPIC_API_KEY=test bin/agent "What is in this directory?"
import { startServer } from './server.js';
import type { Turn } from './server-types.js';

const script: Turn[] = [
  {
    kind: 'message',
    content: [
      { type: 'text', text: 'Let me look at the directory first, then run the slow check.' },
      { type: 'tool_use', name: 'bash', input: { command: 'ls -1 | head -5' } },
    ],
    delayMs: 800,
    chunkDelayMs: 40,
  },
  {
    kind: 'message',
    content: [
      { type: 'text', text: 'Now the check, which takes a few seconds.' },
      {
        type: 'tool_use',
        name: 'bash',
        input: { command: 'for i in 1 2 3 4; do echo "step $i"; sleep 1; done; exit 3' },
      },
    ],
    delayMs: 600,
    chunkDelayMs: 40,
  },
  {
    kind: 'message',
    content: [
      { type: 'text', text: 'The directory holds a few files, and the check failed at its end with exit code 3.' },
    ],
    delayMs: 900,
    chunkDelayMs: 40,
  },
];

// Every run gets the whole script: the step follows from how long the conversation is.
const step: Turn = (request) =>
  script[Math.min(script.length - 1, Math.floor((request.body.messages.length - 1) / 2))]!;
const server = await startServer([], { onExhausted: step });
process.stdout.write(`${server.url}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.on('SIGINT', stop).on('SIGTERM', stop);
