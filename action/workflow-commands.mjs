// Workflow commands as the runner reads them (`::name key=value,…::data`), escaped the way the runner unescapes
// them, and the fence that keeps the runner from acting on any command the agent's output holds.
import { randomBytes } from 'node:crypto';

/** A command's data: the runner turns %25, %0D and %0A back into %, CR and LF. */
export function escapeData(text) {
  return String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value: as data, and also : and , which would end the value early. */
export function escapeProperty(text) {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function workflowCommand(name, properties, data) {
  const props = Object.entries(properties).map(([key, value]) => `${key}=${escapeProperty(value)}`);
  return `::${name}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeData(data)}\n`;
}

/**
 * Between open() and close(), the runner acts on no workflow command at all, whoever writes it: the token that
 * ends the fence is random, made here, and never handed to the agent. close() starts on a fresh line, since a
 * token after a partial last line would not be read as a command and the fence would stay up.
 */
export function commandFence(write) {
  const token = `agent-${randomBytes(16).toString('hex')}`;
  let atLineStart = true;
  return {
    open: () => write(`::stop-commands::${token}\n`),
    relay(chunk) {
      if (chunk.length === 0) return;
      write(chunk);
      atLineStart = chunk.endsWith('\n');
    },
    close: () => write(`${atLineStart ? '' : '\n'}::${token}::\n`),
  };
}
