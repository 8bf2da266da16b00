import path from 'node:path';
import { REPO_ROOT } from './repo.js';

/**
 * A ranges file (the shape of data/agent-ranges.json) in which loopback is GPTBot's, OAI-SearchBot's and
 * Googlebot's published range: a test's requests from 127.0.0.1 with their user agents are then verified
 * (`verification: { rangesFile: LOOPBACK_RANGES }`), as the real crawlers' are from their own addresses.
 */
export const LOOPBACK_RANGES = path.join(REPO_ROOT, 'test/fixtures/loopback-ranges.json');
