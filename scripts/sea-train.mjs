// Makes the standalone binary's code cache: runs the bundled CLI once, as `agent "say hello"` with no stdin, against
// a stand-in for the API on 127.0.0.1 that answers with one streamed text reply, then keeps V8's code cache of the
// bundle as it is at exit, with every function the run compiled. Run by scripts/build-binary.mjs with the Node.js that
// goes into the binary, in an empty home, so that the cache fits that Node.js and no one's settings shape it.
//
//   node scripts/sea-train.mjs <cli.js> <cli.cache>
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire, isBuiltin } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

const [bundle, cacheFile] = process.argv.slice(2);
const script = new Script(readFileSync(bundle, 'latin1'), { filename: 'cli.js' });

const usage = { input_tokens: 12, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
const message = {
  id: 'msg_train',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5',
  content: [],
  stop_reason: null,
  stop_sequence: null,
  usage,
};
const events = [
  ['message_start', { type: 'message_start', message }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '.' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage }],
  ['message_stop', { type: 'message_stop' }],
];
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'request-id': 'req_train' });
    response.end(events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join(''));
  });
});
server.listen(0, '127.0.0.1', () => {
  process.env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${server.address().port}`;
  // The CLI ends the process itself; its exit code is the training run's.
  process.on('exit', (code) => {
    if (code === 0) writeFileSync(cacheFile, script.createCachedData());
  });
  const cli = { exports: {} };
  // As in the binary, require() gives Node's own modules only.
  const require = createRequire(import.meta.url);
  const builtinsOnly = (id) => {
    if (!isBuiltin(id)) throw new Error(`Cannot find module '${id}'`);
    return require(id);
  };
  script.runInThisContext()(builtinsOnly, cli, cli.exports, bundle, dirname(bundle));
  void cli.exports.main(['say hello']);
});
