/** Only a directory of this name is ever removed by a sweep, whatever a record says. */
export const RUN_DIR_PREFIX = 'agent-run-';
/** What mkdtemp makes of the prefix: six letters or digits after it. */
export const RUN_DIR_NAME = /^agent-run-[A-Za-z0-9]{6}$/;
