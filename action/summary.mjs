// The job summary: the run's figures, and the answer shown inert. The summary is rendered as Markdown, so an
// answer written into it as-is could show images (fetched when someone opens the page), links and HTML; inside a
// code fence longer than any run of backticks in it, none of that renders.
const ANSWER_LIMIT = 256 * 1024; // bytes: the summary of a step may be 1 MiB, and the fence can be as long as the text

function utf8Length(text) {
  return Buffer.byteLength(text, 'utf8');
}

/** The first at most `limit` bytes of `text`, cut between characters. */
function cutToBytes(text, limit) {
  const cut = Buffer.from(text, 'utf8').subarray(0, limit).toString('utf8');
  return cut.endsWith('\uFFFD') && !text.startsWith(cut) ? cut.slice(0, -1) : cut;
}

export function inertBlock(text, info = '') {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return [`${fence}${info}`, text, fence];
}

function answerLines(text, info) {
  const size = utf8Length(text);
  if (size <= ANSWER_LIMIT) return [...inertBlock(text, info), ''];
  const shown = cutToBytes(text, ANSWER_LIMIT);
  const note = `_The answer is ${size} bytes; the first ${utf8Length(shown)} are shown. All of it is in the result output and the result_file._`;
  return [...inertBlock(shown, info), '', note, ''];
}

export function summaryText(result, code) {
  const title = result ? `agent: ${result.subtype}` : `agent: exit ${code}, no result object`;
  const lines = [`### ${title}`, ''];
  if (result) {
    const seconds = (Number(result.duration_ms) / 1000).toFixed(1);
    const cost = typeof result.total_cost_usd === 'number' ? `$${result.total_cost_usd.toFixed(4)}` : 'unknown';
    lines.push(
      '| turns | commands | time | cost |',
      '|---|---|---|---|',
      `| ${Number(result.num_turns)} | ${Number(result.commands)} | ${seconds} s | ${cost} |`,
      '',
    );
    if (result.error) lines.push('**Error:**', '', ...answerLines(String(result.error), ''));
    if (result.structured_output !== undefined)
      lines.push(...answerLines(JSON.stringify(result.structured_output, null, 2), 'json'));
    else if (result.result) lines.push(...answerLines(String(result.result), 'text'));
  }
  return `${lines.join('\n')}\n`;
}
