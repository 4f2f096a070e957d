// Loaded with `node --require` into the agent under test: kills the process outright (SIGKILL, which nothing can
// catch) at the moment AGENT_TEST_KILL_AT names, so that a test can stand in for a kill timed into any gap of the
// run's bookkeeping, every time, instead of hoping for it:
//   run-dir-made      right after the run's private directory (agent-run-*) is made
//   record-written    right after the run's record is written in the state directory (running/*.json)
//   run-dir-removing  right before the run's private directory is removed
//   record-removing   right before the run's record is removed
//   probe-dir-made    right after the scratch directory of the sandbox's probe (agent-sandbox-probe-*) is made
'use strict';
const fs = require('node:fs');
const { basename, dirname } = require('node:path');
const { syncBuiltinESMExports } = require('node:module');

const point = process.env.AGENT_TEST_KILL_AT;
const isRunDir = (path) => typeof path === 'string' && basename(path).startsWith('agent-run-');
const isRecord = (path) => typeof path === 'string' && basename(dirname(path)) === 'running' && path.endsWith('.json');
const die = () => process.kill(process.pid, 'SIGKILL');

function after(name, matches, wanted) {
  const original = fs[name];
  fs[name] = function (...args) {
    const result = original.apply(this, args);
    const path = name === 'mkdtempSync' ? result : args[0];
    if (point === wanted && matches(path)) die();
    return result;
  };
}

function before(name, matches, wanted) {
  const original = fs[name];
  fs[name] = function (...args) {
    if (point === wanted && matches(args[0])) die();
    return original.apply(this, args);
  };
}

after('mkdtempSync', isRunDir, 'run-dir-made');
after('mkdirSync', isRunDir, 'run-dir-made');
after('writeFileSync', isRecord, 'record-written');
before('rmSync', isRunDir, 'run-dir-removing');
before('unlinkSync', isRecord, 'record-removing');
const promises = fs.promises;
const mkdtemp = promises.mkdtemp;
promises.mkdtemp = async function (...args) {
  const made = await mkdtemp.apply(this, args);
  if (point === 'probe-dir-made' && basename(made).startsWith('agent-sandbox-probe-')) die();
  return made;
};
syncBuiltinESMExports();
