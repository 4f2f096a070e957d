/** Only a directory of this name is ever removed by a sweep, whatever a record says. */
export const RUN_DIR_PREFIX = 'agent-run-';
/** The names run-dir.ts draws: six letters or digits after the prefix, as mkdtemp would. */
export const RUN_DIR_NAME = /^agent-run-[A-Za-z0-9]{6}$/;
