import type Anthropic from '@anthropic-ai/sdk';
import type { Effort, ModelPlan } from '../config.js';
import type { ModelFailure } from './failure.js';

export const EFFORTS = ['low', 'medium', 'high', 'max'] as const satisfies readonly Effort[];

type ApiFailure = Extract<ModelFailure, { kind: 'api' }>;

/** Top-level fields added to every request, which some endpoints refuse. */
export interface RequestExtras {
  fields(): Partial<Anthropic.MessageStreamParams>;
  /**
   * Told of each failure that is not retried: true when it says the endpoint refuses these fields, which are then
   * dropped for the rest of the run, and the call is made again without them.
   */
  refused(failure: ApiFailure): boolean;
}

/** A 400 about the conversation's content names a message; one about the settings names the field alone. */
const ABOUT_CONTENT = /messages\.\d/;

/**
 * The thinking settings of the model in use, until the endpoint refuses them: a 400 (or a gateway's 422) whose
 * message names `thinking` or `effort`. Then the run goes on without what was named, once warned.
 */
export function thinkingExtras(plan: () => ModelPlan, warn: (message: string) => void): RequestExtras {
  let thinkingOn = true;
  let effortOn = true;
  return {
    fields() {
      const { thinking, effort, maxTokensWithoutThinking } = plan();
      return {
        ...(thinkingOn && thinking ? { thinking } : {}),
        // The room left for thinking goes too: an endpoint without thinking may also cap max_tokens lower.
        ...(!thinkingOn && maxTokensWithoutThinking ? { max_tokens: maxTokensWithoutThinking } : {}),
        ...(effortOn && effort ? { output_config: { effort } } : {}),
      } as Partial<Anthropic.MessageStreamParams>;
    },
    refused(failure) {
      if ((failure.status !== 400 && failure.status !== 422) || ABOUT_CONTENT.test(failure.message)) return false;
      const { thinking, effort } = plan();
      const offThinking = thinkingOn && thinking !== undefined && /thinking/i.test(failure.message);
      const offEffort = effortOn && effort !== undefined && /effort|output_config(?!\.format)/i.test(failure.message);
      if (!offThinking && !offEffort) return false;
      if (offThinking) thinkingOn = false;
      if (offEffort) effortOn = false;
      const what =
        offThinking && offEffort ? 'thinking and effort settings' : offThinking ? 'thinking setting' : 'effort setting';
      warn(`the endpoint refused the ${what} (${failure.message}); the rest of the run goes without.`);
      return true;
    },
  };
}

/** Several sets of extra fields as one: their output_config objects merged, refusals asked of each in turn. */
export function combineExtras(...sets: Array<RequestExtras | undefined>): RequestExtras {
  const present = sets.filter((set): set is RequestExtras => set !== undefined);
  return {
    fields() {
      const merged: Record<string, unknown> = {};
      for (const set of present) {
        const fields = set.fields() as Record<string, unknown>;
        const config = {
          ...(merged.output_config as object | undefined),
          ...(fields.output_config as object | undefined),
        };
        Object.assign(merged, fields);
        if (Object.keys(config).length > 0) merged.output_config = config;
      }
      return merged as Partial<Anthropic.MessageStreamParams>;
    },
    refused: (failure) => present.some((set) => set.refused(failure)),
  };
}

/** A thinking block that came without its signature (a stream cut short) can never be sent back. */
export function hasUnsignedThinking(message: Anthropic.Message): boolean {
  return message.content.some((block) => block.type === 'thinking' && !block.signature);
}
