import { sql } from 'express-agent-discovery'

/**
 * Publishes one resource the plugin serves and lists, with the categories around it. `db` is
 * `agent.database.db`; run it once, on a database without these names. Returns the resource's id.
 */
export async function addFirstResource(db) {
  return db.transaction().execute(async (trx) => {
    // Categories are resources too, and refer to each other: reserve the ids first
    // (the foreign key from rsc.category_id is checked at commit).
    const { rows } = await sql`SELECT nextval(pg_get_serial_sequence('rsc', 'id'))::int AS id
      FROM generate_series(1, 4)`.execute(trx)
    const [meta, category, article, hello] = rows.map((row) => row.id)
    const publicResource = (id, name, categoryId, title) => ({
      id,
      name, // optional unique name, ^[a-z][a-z0-9_]*$
      category_id: categoryId,
      is_published: true,
      visibility: 'public',
      publication_start: sql`now()`, // visible from now on ...
      publication_end: null, // ... with no end
      language: ['en'], // its languages, its own first
      title: JSON.stringify({ en: title }), // per-language text: { en: …, nl: … }
    })
    await trx
      .insertInto('rsc')
      .values([
        publicResource(meta, 'meta', category, 'Vocabulary'),
        publicResource(category, 'category', category, 'Categories'),
        publicResource(article, 'article', category, 'Articles'),
        {
          ...publicResource(hello, 'hello_harbour', article, 'Hello, harbour'),
          summary: JSON.stringify({ en: 'The first article.' }),
          body: JSON.stringify({ en: '<p>The ferry docks at <em>dawn</em>.</p>' }),
        },
      ])
      .execute()
    await trx
      .insertInto('category')
      .values([
        { id: meta, parent_id: null, is_noindex: false }, // the vocabulary root: never listed
        { id: category, parent_id: meta, is_noindex: false },
        { id: article, parent_id: null, is_noindex: false }, // top level: llms.txt links a search for it
      ])
      .execute()
    return hello
  })
}
