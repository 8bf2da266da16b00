#!/usr/bin/env bash
# Prepares a Directus 12 database for express-agent-discovery (the views road): generates the recipe
# from Directus's own model (its collections, fields, relations and the Public policy's rules) and
# applies it, then checks the plans. Directus's tables keep their columns; the recipe adds a schema
# `agent`, triggers and indexes. Safe to run again (after a change of the model): it recomputes every row.
#
#   DATABASE_URL=postgres://directus@db/directus SITE_URL=https://news.example bash examples/cms/directus/setup.sh
#   DATABASE_URL=… bash examples/cms/directus/setup.sh --collection 'posts:/blog/{slug}' --map pages.date=none
#
# Arguments (optional): the generator's options naming your collections (--collection, --map,
# --predicate; see docs/guides/directus.md); without them, the example's model (articles, authors, tags).
#
# SITE_URL (optional): the public site the articles are on; they cite <SITE_URL>/articles/<slug>.
# RECIPE_SQL (optional): where to write the generated SQL (default: a temporary file, kept).
# EXPRESS_AGENT_DISCOVERY (optional): how to run the command (default: npx express-agent-discovery).
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL to the Directus database}"
cli=${EXPRESS_AGENT_DISCOVERY:-npx express-agent-discovery}
sql=${RECIPE_SQL:-$(mktemp "${TMPDIR:-/tmp}/agent-directus-XXXXXX.sql")}

# The example's model: articles at /articles/<slug>; authors and tags have no date field: served undated.
if [ "$#" -eq 0 ]; then
  set -- --collection 'articles:/articles/{slug}' --collection 'authors:/authors/{slug}' --collection 'tags:/tags/{slug}' \
    --map authors.date=none --map tags.date=none
fi
$cli views directus --database-url "$DATABASE_URL" ${SITE_URL:+--site-url "$SITE_URL"} "$@" \
  --text-search english \
  --out "$sql"

psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f "$sql"
echo "applied $sql"

# Every hot statement should read through an index, and no rule should be hidden for want of translation.
$cli doctor --database-url "$DATABASE_URL" --search-path agent,public --text-search english || echo "doctor: see above"
