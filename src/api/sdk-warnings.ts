import type { EventSink } from '../events.js';

/** What the SDK says about the model with console.warn on every request. */
const SDK_MODEL_WARNING = /^(The model '.+' is deprecated|Using Claude with .+ is deprecated)/;

/**
 * The SDK warns about a deprecated model with console.warn before every request: unprefixed, past `-q`, across the
 * spinner's line and once per turn. Those warnings become one `warning:` event each; anything else the SDK says
 * goes on to console.warn as before.
 */
export function routeSdkWarnings(emit: EventSink): void {
  const original = console.warn.bind(console);
  const said = new Set<string>();
  console.warn = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (!SDK_MODEL_WARNING.test(text)) return original(...args);
    const message = text.replace(/\s*\n\s*/g, ' ');
    if (said.has(message)) return;
    said.add(message);
    emit({ type: 'warning', message });
  };
}
