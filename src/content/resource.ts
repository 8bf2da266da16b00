import type { Kysely } from 'kysely';
import type { Block, Database, LocalizedText } from '../db/schema.js';
import { anonymousVisible } from './visibility.js';
import { byRef, type ResourceRef } from './resource-ref.js';
import { fromResourcesWithCategory, SUMMARY_COLUMNS, type SummaryRow } from './summaries.js';

export interface ResourceRow extends SummaryRow {
  body: Record<string, string>;
  blocks: Block[];
  props: Record<string, unknown>;
  publication_end: Date | null;
  created: Date;
  license: LocalizedText | null;
  attribution: LocalizedText | null;
  medium_mime: string | null;
  medium_width: number | null;
  medium_height: number | null;
  medium_size: number | null;
  medium_filename: string | null;
}

/**
 * One anonymous-visible resource by id or unique name, with its category and medium; `undefined`
 * for missing, private, unpublished and out-of-window resources alike. Noindex resources are
 * readable here (direct reads allow them).
 */
export async function readVisibleResource(db: Kysely<Database>, ref: ResourceRef): Promise<ResourceRow | undefined> {
  const row = await fromResourcesWithCategory(db)
    .leftJoin('medium as m', 'm.rsc_id', 'r.id')
    .select(SUMMARY_COLUMNS)
    .select([
      'r.body',
      'r.blocks',
      'r.props',
      'r.publication_end',
      'r.created',
      'r.license',
      'r.attribution',
      'm.mime as medium_mime',
      'm.width as medium_width',
      'm.height as medium_height',
      'm.size as medium_size',
      'm.filename as medium_filename',
    ])
    .where(anonymousVisible('r'))
    .where(byRef('r', ref))
    .executeTakeFirst();
  return row as ResourceRow | undefined;
}
