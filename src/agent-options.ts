/**
 * What the function-valued options receive and answer. The options themselves, with their defaults
 * and documentation, are defined once, by the schema in `src/options.ts`.
 */

/** What the page-URL builder receives: enough to build the human page URL of a resource. */
export interface PageUrlInput {
  id: number;
  name: string | null;
  language: string;
  category: string | null;
}

/** What the media URL builder receives. */
export interface MediaUrlInput {
  id: number;
  filename: string;
  mime: string;
}

/** Which resources a caller of the compatibility model API may see. */
export type CallerAccess = 'anonymous' | 'all';
