// The runner's reading of a step's output lines: `::name k=v,…::data` (and the older `##[name k=v;]data`), the
// line trimmed first; `::stop-commands::TOKEN` stops all reading until a `::TOKEN::` line; `::add-mask::` hides a
// value from the log from then on. Values are unescaped as the runner does (%25, %0D, %0A, and %3A, %2C in
// properties).

export interface ActedCommand {
  command: string;
  properties: Record<string, string>;
  data: string;
}

const unescapeData = (text: string) => text.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%25/g, '%');
const unescapeProperty = (text: string) => unescapeData(text.replace(/%3A/gi, ':').replace(/%2C/gi, ','));

function parseProperties(text: string, separator: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const pair of text.split(separator)) {
    const at = pair.indexOf('=');
    if (at > 0) properties[pair.slice(0, at).trim()] = unescapeProperty(pair.slice(at + 1));
  }
  return properties;
}

export function parseCommandLine(line: string): ActedCommand | undefined {
  const text = line.trim();
  if (text.startsWith('::')) {
    const end = text.indexOf('::', 2);
    if (end === -1) return undefined;
    const info = text.slice(2, end);
    const space = info.indexOf(' ');
    const command = space === -1 ? info : info.slice(0, space);
    return {
      command,
      properties: space === -1 ? {} : parseProperties(info.slice(space + 1), ','),
      data: unescapeData(text.slice(end + 2)),
    };
  }
  const legacy = /^##\[([^\]\s]+)(?: ([^\]]*))?\](.*)$/.exec(text);
  if (legacy)
    return { command: legacy[1]!, properties: parseProperties(legacy[2] ?? '', ';'), data: unescapeData(legacy[3]!) };
  return undefined;
}

export function readWorkflowCommands(output: string): { commands: ActedCommand[]; log: string } {
  const commands: ActedCommand[] = [];
  const masks: string[] = [];
  const shown: string[] = [];
  let stopToken: string | undefined;
  for (const line of output.split('\n')) {
    const command = parseCommandLine(line);
    const acted = command !== undefined && (stopToken === undefined || command.command === stopToken);
    if (acted) {
      commands.push(command);
      if (stopToken !== undefined) stopToken = undefined;
      else if (command.command === 'stop-commands') stopToken = command.data;
      else if (command.command === 'add-mask' && command.data !== '') masks.push(command.data);
      continue;
    }
    shown.push(masks.reduce((text, mask) => text.split(mask).join('***'), line));
  }
  return { commands, log: shown.join('\n') };
}
