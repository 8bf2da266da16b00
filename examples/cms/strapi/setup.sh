#!/usr/bin/env bash
# Prepares a Strapi 5 database for express-agent-discovery (the views road): generates the recipe from
# Strapi's own model (the content types Strapi stores, the project's model files, its locales and the
# users-permissions Public role) and applies it, then runs doctor. The recipe adds a schema `agent` of
# tables the plugin reads, kept by triggers on Strapi's tables inside Strapi's own transactions (their
# functions and live views in `agent_live`), and an index on each `*_cmps` table's cmp_id; Strapi's rows
# are not changed. Safe to run again (it replaces the triggers and functions, keeps the tables' rows).
#
#   DATABASE_URL=postgres://strapi@db/strapi SITE_URL=https://news.example bash examples/cms/strapi/setup.sh
#
# STRAPI_PROJECT (optional): the Strapi project's folder (its src/api and src/components): dynamic zones
#   are served only with it (components are not in the database's copy of the model).
# SITE_URL (optional): the public site; pages are cited as <SITE_URL>/<locale>/articles/<slug>.
# RECIPE_SQL (optional): where to write the generated SQL (default: a temporary file, kept).
# EXPRESS_AGENT_DISCOVERY (optional): how to run the command (default: npx express-agent-discovery).
# Arguments (optional): more generator options (--type, --upload-base, …; see docs/guides/strapi.md).
set -euo pipefail
: "${DATABASE_URL:?set DATABASE_URL to the Strapi database}"
cli=${EXPRESS_AGENT_DISCOVERY:-npx express-agent-discovery}
sql=${RECIPE_SQL:-$(mktemp "${TMPDIR:-/tmp}/agent-strapi-XXXXXX.sql")}
report=$(mktemp "${TMPDIR:-/tmp}/agent-strapi-report-XXXXXX.txt")

# Every content type the Public role may read is served (the generator reports which, and why not the others).
if ! $cli views strapi --database-url "$DATABASE_URL" ${SITE_URL:+--site-url "$SITE_URL"} \
  ${STRAPI_PROJECT:+--model "$STRAPI_PROJECT"} "$@" --out "$sql" 2>"$report"; then
  cat "$report" >&2
  exit 2
fi
cat "$report" >&2
types=$(sed -n 's/^served: //p' "$report")
echo "serving: ${types:-nothing}"

psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -f "$sql"
echo "applied $sql"

# Every hot statement's plan, and what is served without a part or hidden (fail closed).
$cli doctor --database-url "$DATABASE_URL" --search-path agent,public || echo "doctor: see above"
