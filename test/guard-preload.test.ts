// The guard's parser is not part of start-up, but neither does the first command wait for it: it loads while the
// first request is out, in the time the model takes to answer.
import { basename } from 'node:path';
import { expect, it } from 'vitest';
import { chunksLoaded } from './support/chunks-loaded.js';
import type { Turn } from './support/server.js';
import { useServer } from './support/use-server.js';

const serve = useServer();
/** The guard's walker, which the bundle keeps in a chunk of its own with the parser beneath it. */
const holdsParser = (path: string) => basename(path).startsWith('walk-');

it('loads the parser while the first request is out: a run that never runs a command has it', async () => {
  const slowAnswer: Turn = {
    kind: 'message',
    content: [{ type: 'text', text: 'no command needed' }],
    stop_reason: 'end_turn',
    // Longer than loading the chunk takes even on a loaded machine: what is measured is that it loads at all.
    delayMs: 1500,
  };
  const loaded = await chunksLoaded(['say hello'], await serve([slowAnswer]));
  expect(loaded.filter(holdsParser)).toHaveLength(1);
});
