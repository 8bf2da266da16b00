// Serves a Ghost blog's content to agents through the push API, in one of two ways:
// - beside a real Ghost (GHOST_URL set, no MariaDB): the content comes from Ghost's own export
//   (import-export.mjs) and stays current through Ghost's webhooks (companion-host.mjs);
//     DATABASE_URL=postgres://… PORT=3000 GHOST_URL=https://blog.example GHOST_WEBHOOK_SECRET=… node host.mjs
// - as a Ghost-shaped CMS on MariaDB that pushes on every save (mariadb-host.mjs);
//     ADMIN_TOKEN=secret MYSQL_DATABASE=test PORT=3000 node host.mjs
if (process.env.GHOST_URL) await import('./companion-host.mjs')
else await import('./mariadb-host.mjs')
