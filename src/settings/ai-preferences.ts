import { blocksTraining } from '../policy/agent-policy.js';
import { policyInForce } from '../policy/policy-settings.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ResolvedOptions } from '../options.js';
import { mergeSettings, type EffectiveSettings } from './effective-settings.js';
import { readSettingsSnapshot } from './settings-store.js';

/**
 * The operator's AI usage preferences, set on the admin page or by the `contentSignals` option: the three Content Signals of
 * robots.txt (`search`, `ai-input`, `ai-train`, each yes, no or not set), also sent as the IETF
 * aipref `Content-Usage` header on content responses.
 */

/** What each Content Signal is, as stored (`null`: not set). */
export interface ContentSignals {
  readonly search: boolean | null;
  readonly 'ai-input': boolean | null;
  readonly 'ai-train': boolean | null;
}

export type ContentSignalName = keyof ContentSignals;

/** The Content Signals in the order robots.txt lists them. */
const CONTENT_SIGNAL_NAMES: readonly ContentSignalName[] = ['search', 'ai-input', 'ai-train'];

/**
 * Each Content Signal's category in the aipref vocabulary: `search` is Search, `ai-input` (input to an
 * AI model at answer time: grounding, retrieval) is AI Use, `ai-train` (training or fine-tuning) is
 * AI Training.
 */
const AIPREF_LABELS: Readonly<Record<ContentSignalName, string>> = Object.freeze({ search: 'search', 'ai-input': 'ai-use', 'ai-train': 'train-ai' });

const setSignals = (signals: ContentSignals) => CONTENT_SIGNAL_NAMES.filter((name) => signals[name] !== null);

/**
 * The `Content-Signal:` value of robots.txt (Cloudflare's Content Signals), only the signals set;
 * undefined when none is.
 *
 * ```ts
 * contentSignalValue({ search: true, 'ai-input': null, 'ai-train': false }) // 'search=yes, ai-train=no'
 * ```
 */
export function contentSignalValue(signals: ContentSignals): string | undefined {
  const set = setSignals(signals);
  return set.length ? set.map((name) => `${name}=${signals[name] ? 'yes' : 'no'}`).join(', ') : undefined;
}

/**
 * The same preferences as an aipref usage preference (a structured-field Dictionary of `y`/`n`
 * tokens): the `Content-Usage` header's value and robots.txt's `Content-Usage:` rule; undefined when
 * none is set.
 *
 * ```ts
 * contentUsageValue({ search: true, 'ai-input': null, 'ai-train': false }) // 'search=y, train-ai=n'
 * ```
 */
export function contentUsageValue(signals: ContentSignals): string | undefined {
  const set = setSignals(signals);
  return set.length ? set.map((name) => `${AIPREF_LABELS[name]}=${signals[name] ? 'y' : 'n'}`).join(', ') : undefined;
}

/**
 * The Content Signals in force (each `null` when set neither on the admin page nor by the `contentSignals`
 * option), with what the agent policy enforces: a policy that blocks training crawlers says `ai-train=no`
 * whatever the signal setting says (the signals never contradict what is enforced).
 */
export function contentSignalsOf(
  s: Pick<EffectiveSettings, 'contentSignalSearch' | 'contentSignalAiInput' | 'contentSignalAiTrain' | 'agentPolicy'>,
): ContentSignals {
  const trainingBlocked = blocksTraining(policyInForce(s));
  return { search: s.contentSignalSearch ?? null, 'ai-input': s.contentSignalAiInput ?? null, 'ai-train': trainingBlocked ? false : (s.contentSignalAiTrain ?? null) };
}

/**
 * The `Content-Usage` value of content responses, read from the settings now (no cache: a change
 * applies to the next request), each signal the admin page's else the option's; undefined when none is set.
 */
export async function readContentUsage(db: Kysely<Database>, options: ResolvedOptions): Promise<string | undefined> {
  return contentUsageValue(contentSignalsOf(mergeSettings(options, await readSettingsSnapshot(db))));
}
