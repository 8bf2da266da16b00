import { ident, literal } from './sql-text.js';

/** The names every part of the generated SQL is written with, quoted once. */
export interface RecipeNames {
  /** The recipe's schema, quoted (`"agent"`). */
  readonly s: string;
  /** The recipe's schema, as written (`agent`). */
  readonly recipe: string;
  /** The schema of Directus's tables, as written (`public`). */
  readonly directus: string;
  /** The same, quoted. */
  readonly directusIdent: string;
  /** The zone of the Directus server, in which its `timestamp without time zone` fields are written. */
  readonly zone: string;
}

/** The names of a recipe in schema `recipe` over Directus's tables in `directus`. */
export function recipeNames(recipe: string, directus: string, zone: string): RecipeNames {
  return Object.freeze({ s: ident(recipe), recipe, directus, directusIdent: ident(directus), zone });
}

/** `zone` as an SQL literal, for `AT TIME ZONE`. */
export const zoneLiteral = (n: RecipeNames): string => literal(n.zone);
