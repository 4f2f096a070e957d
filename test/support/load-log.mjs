// Loaded with `node --import`: writes the URL of every ES module the process loads to AGENT_LOAD_LOG, one a line, so
// that a test can see which chunks of dist/ a run loads.
import { register } from 'node:module';

register('./load-log-hooks.mjs', import.meta.url, { data: { file: process.env.AGENT_LOAD_LOG } });
