// The entry point of the standalone binary (a Node.js single executable), where process.argv is [the binary, the
// binary, ...the user's words]. As bin/agent does, --version is answered before the CLI's code is read.
// The CLI itself is an asset of the executable, compiled here with V8's code cache for it. The build made that cache
// by running the CLI once (scripts/sea-train.mjs), so it holds every function a run calls, not only the top level;
// the Node.js that made it is the one inside the binary. Should V8 refuse the cache all the same, it compiles the
// source as any script: slower, never different.
import { getRawAsset } from 'node:sea';
import { Script } from 'node:vm';

declare const AGENT_VERSION: string;

// The asset names that scripts/build-binary.mjs gives them.
const CLI_ASSET = 'cli.js';
const CACHE_ASSET = 'cli.cache';

const words = process.argv.slice(2);
if (words.length === 1 && (words[0] === '--version' || words[0] === '-V')) {
  process.stdout.write(`${AGENT_VERSION}\n`);
} else {
  // The assets are read in place, in the executable's own memory, never copied (nothing here writes to them). The
  // bundle is ASCII (the build checks): read as latin1, it is copied once into a string, not decoded.
  const source = Buffer.from(getRawAsset(CLI_ASSET) as ArrayBuffer).toString('latin1');
  const cachedData = Buffer.from(getRawAsset(CACHE_ASSET) as ArrayBuffer);
  const script = new Script(source, { filename: CLI_ASSET, cachedData });
  const cli = { exports: {} as { main(argv: string[]): Promise<void> } };
  // The asset is a CommonJS function (see scripts/build-binary.mjs); its require() loads Node's own modules only.
  script.runInThisContext()(require, cli, cli.exports, __filename, __dirname);
  void cli.exports.main(words);
}
