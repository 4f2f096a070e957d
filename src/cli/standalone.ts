// The entry point of the standalone binary: the same CLI, started from inside a Node.js single executable, where
// process.argv is [the binary, the binary, ...the user's words]. As bin/agent does, --version is answered before the
// CLI's code runs.
declare const AGENT_VERSION: string;

const words = process.argv.slice(2);
if (words.length === 1 && (words[0] === '--version' || words[0] === '-V')) {
  process.stdout.write(`${AGENT_VERSION}\n`);
} else {
  void import('./main.js').then(({ main }) => main(words));
}
