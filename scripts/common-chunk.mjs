// esbuild `inject`, for where code lands: what an injected file imports, every chunk imports, so it goes into the one
// chunk that all chunks load (with esbuild's helpers and scripts/fetch-globals.mjs). Without this, each small module
// that the entry chunk shares with the agent's chunk, the output's or one loaded later (the executor, the guard) got
// a chunk of its own: a run loaded some seventeen files before its first request, at about 0.3 ms each on Node 24.
// These are small and load nothing; a module missing here only costs a file more, never a behaviour.
import '../src/budget.ts';
import '../src/clock.ts';
import '../src/api/pricing.ts';
import '../src/api/proxy-settings.ts';
import '../src/api/thinking.ts';
import '../src/api/usage.ts';
import '../src/cli/exit.ts';
import '../src/cli/render/format.ts';
import '../src/cli/render/json.ts';
import '../src/cli/streams.ts';
import '../src/glob.ts';
import '../src/outcome.ts';
import '../src/own-file.ts';
import '../src/plural.ts';
import '../src/random.ts';
import '../src/shell/clean-output.ts';
import '../src/shell/no-output.ts';
import '../src/shell/run-dir-name.ts';
import '../src/shell/shell-env.ts';
