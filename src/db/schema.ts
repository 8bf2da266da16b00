import type { ColumnType, Generated } from 'kysely';

/** A text value given once for all languages, or per language code. */
export type LocalizedText = string | Record<string, string>;

/** One editorial block of a resource. */
export interface Block {
  type: string;
  name?: string;
  header?: LocalizedText;
  body?: LocalizedText;
  rsc_id?: number;
  props?: Record<string, unknown>;
}

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, T | string | undefined, T | string>;

export interface RscTable {
  id: Generated<number>;
  name: string | null;
  category_id: number;
  is_published: Generated<boolean>;
  visibility: Generated<string>;
  publication_start: Timestamp;
  publication_end: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created: Timestamp;
  modified: Timestamp;
  language: ColumnType<string[], string[] | undefined, string[]>;
  title: Json<Record<string, string>>;
  summary: Json<Record<string, string>>;
  body: Json<Record<string, string>>;
  blocks: Json<Block[]>;
  props: Json<Record<string, unknown>>;
  seo_noindex: Generated<boolean>;
  uri: string | null;
  license: Json<LocalizedText | null>;
  attribution: Json<LocalizedText | null>;
}

export interface CategoryTable {
  id: number;
  parent_id: number | null;
  is_noindex: Generated<boolean>;
}

export interface PredicateCategoryTable {
  predicate_id: number;
  is_subject: boolean;
  category_id: number;
}

export interface EdgeTable {
  id: Generated<number>;
  subject_id: number;
  predicate_id: number;
  object_id: number;
  seq: Generated<number>;
  created: Timestamp;
}

export interface MediumTable {
  rsc_id: number;
  mime: string;
  width: number | null;
  height: number | null;
  size: number | null;
  filename: string;
}

/** The content schema the plugin reads, as Kysely sees it. */
/** The plugin's own settings row (migration 0002); null columns fall back to the factory options. */
export interface AgentSettingsTable {
  id: Generated<boolean>;
  description: string | null;
  noindex: boolean | null;
  sitemap_url: string | null;
  llms_notes: string | null;
  modified: Generated<Date>;
}

export interface Database {
  agent_discovery_settings: AgentSettingsTable;
  rsc: RscTable;
  category: CategoryTable;
  predicate_category: PredicateCategoryTable;
  edge: EdgeTable;
  medium: MediumTable;
}
