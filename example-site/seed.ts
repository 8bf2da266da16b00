import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/index.js';
import {
  bootstrapVocabulary,
  insertCategory,
  insertEdges,
  insertMedium,
  insertPredicate,
  insertResource,
} from './content-store.js';

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

/** Names of the demo resources, for tests and the README's walk-through. */
export const DEMO = {
  about: 'about',
  welcome: 'welcome',
  blocks: 'block_showcase',
  pageOuter: 'guide_outer',
  pageMiddle: 'guide_middle',
  pageInner: 'guide_inner',
  privateRef: 'links_to_private',
  image: 'harbour_photo',
  private: 'members_only',
  unpublished: 'draft_article',
  scheduled: 'scheduled_article',
  expired: 'expired_article',
  noindex: 'hidden_from_search',
  pressRelease: 'press_release_one',
  englishOnly: 'english_only',
  dutchOnly: 'alleen_nederlands',
  popularKeyword: 'open_data',
  noindexCategory: 'press_release',
} as const;

/** True when the demo content is already there. */
export async function isSeeded(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('rsc').select('id').where('name', '=', 'meta').executeTakeFirst();
  return row !== undefined;
}

/**
 * Seeds the demo content in English and Dutch, covering every case of the contract: text and header
 * blocks, a survey block, page blocks two deep, a custom block type (with a site override template),
 * an unsupported block type, keywords and people over several predicates (one keyword with 300
 * edges), a medium, licensing, and private, unpublished, scheduled, expired and noindex resources.
 */
export async function seedDemoContent(db: Kysely<Database>): Promise<void> {
  const { meta } = await bootstrapVocabulary(db);
  void meta;
  const text = await insertCategory(db, { name: 'text', title: { en: 'Texts', nl: 'Teksten' }, summary: { en: 'Everything written.', nl: 'Alles wat geschreven is.' } });
  const article = await insertCategory(db, { name: 'article', parent: text, title: { en: 'Articles', nl: 'Artikelen' }, summary: { en: 'Articles and guides.', nl: 'Artikelen en gidsen.' } });
  const guide = await insertCategory(db, { name: 'guide', parent: article, title: { en: 'Guides', nl: 'Gidsen' } });
  const press = await insertCategory(db, { name: DEMO.noindexCategory, parent: text, isNoindex: true, title: { en: 'Press releases', nl: 'Persberichten' } });
  const person = await insertCategory(db, { name: 'person', title: { en: 'People', nl: 'Personen' }, summary: { en: 'Authors and editors.', nl: 'Auteurs en redacteuren.' } });
  const keyword = await insertCategory(db, { name: 'keyword', title: { en: 'Keywords', nl: 'Trefwoorden' } });
  const image = await insertCategory(db, { name: 'image', title: { en: 'Images', nl: 'Afbeeldingen' } });
  await insertCategory(db, { name: 'internal_notes', parent: text, visibility: 'members', title: { en: 'Internal notes' } });

  const author = await insertPredicate(db, { name: 'author', title: { en: 'Author', nl: 'Auteur' }, subjects: [text], objects: [person] });
  const subject = await insertPredicate(db, { name: 'subject', title: { en: 'Subject', nl: 'Onderwerp' }, subjects: [text, image], objects: [keyword] });
  const depiction = await insertPredicate(db, { name: 'depiction', title: { en: 'Depiction', nl: 'Afbeelding' }, subjects: [text], objects: [image] });
  await insertPredicate(db, { name: 'internal_link', visibility: 'members', title: { en: 'Internal link' } });

  const ada = await insertResource(db, { name: 'ada_lovelace', category: person, title: { en: 'Ada Lovelace', nl: 'Ada Lovelace' }, summary: { en: 'Editor of the example site.', nl: 'Redacteur van de voorbeeldsite.' } });
  const grace = await insertResource(db, { name: 'grace_hopper', category: person, title: { en: 'Grace Hopper', nl: 'Grace Hopper' }, summary: { en: 'Writes the guides.', nl: 'Schrijft de gidsen.' } });
  const openData = await insertResource(db, { name: DEMO.popularKeyword, category: keyword, title: { en: 'Open data', nl: 'Open data' }, summary: { en: 'Data anyone may use.', nl: 'Gegevens die iedereen mag gebruiken.' } });
  const harbours = await insertResource(db, { name: 'harbours', category: keyword, title: { en: 'Harbours', nl: 'Havens' } });

  const photo = await insertResource(db, {
    name: DEMO.image,
    category: image,
    title: { en: 'The harbour at dawn', nl: 'De haven bij dageraad' },
    summary: { en: 'A photograph of the old harbour.', nl: 'Een foto van de oude haven.' },
    license: 'CC BY-SA 4.0',
    attribution: { en: 'Photo: Example Harbour Archive', nl: 'Foto: Voorbeeld Havenarchief' },
    publicationStart: ago(40),
  });
  // The file is shipped in example-site/media/attachment/: its real size and dimensions.
  await insertMedium(db, { rscId: photo, mime: 'image/png', filename: 'harbour-dawn.png', width: 160, height: 90, size: 12105 });

  const about = await insertResource(db, {
    name: DEMO.about,
    category: text,
    title: { en: 'About this site', nl: 'Over deze site' },
    summary: { en: 'Who writes the example site, and why.', nl: 'Wie de voorbeeldsite schrijft, en waarom.' },
    body: {
      en: '<p>The example site is written by its editors to show how agents read a CMS.</p>',
      nl: '<p>De voorbeeldsite wordt geschreven door de redactie om te laten zien hoe agents een CMS lezen.</p>',
    },
    license: 'CC BY 4.0',
    publicationStart: ago(90),
  });

  const welcome = await insertResource(db, {
    name: DEMO.welcome,
    category: article,
    title: { en: 'Welcome to the example site', nl: 'Welkom op de voorbeeldsite' },
    summary: { en: 'What this site publishes and how agents can read it.', nl: 'Wat deze site publiceert en hoe agents het kunnen lezen.' },
    body: {
      en: `<p>This site publishes <strong>articles about harbours</strong> and open data. See the <a href="/en/page/${about}">about page</a>.</p>`,
      nl: `<p>Deze site publiceert <strong>artikelen over havens</strong> en open data. Zie de <a href="/nl/page/${about}">over-pagina</a>.</p>`,
    },
    blocks: [
      { type: 'header', name: 'h1', header: { en: 'Why we publish', nl: 'Waarom we publiceren' } },
      { type: 'text', name: 't1', body: { en: '<p>Open knowledge about the harbour.</p>', nl: '<p>Open kennis over de haven.</p>' } },
    ],
    license: 'CC BY 4.0',
    attribution: { en: 'Example Site editors', nl: 'Redactie Voorbeeldsite' },
    publicationStart: ago(30),
    modified: ago(2),
  });

  const showcase = await insertResource(db, {
    name: DEMO.blocks,
    category: article,
    title: { en: 'Block showcase', nl: 'Blokken-etalage' },
    summary: { en: 'Every kind of block the site uses.', nl: 'Elk soort blok dat de site gebruikt.' },
    body: {
      en:
        `<p>Intro with a <a href="/en/page/${welcome}">relative link</a> and an image <img src="/media/inline/harbour-small.png" alt="small harbour">.</p>` +
        '<script>alert("never in Markdown")</script>' +
        '<table><tr><td>Port</td><td>Depth | metres</td></tr><tr><td>North</td><td>12</td></tr></table>' +
        '<pre>const depth = 12;</pre>',
      nl: `<p>Inleiding met een <a href="/nl/page/${welcome}">relatieve link</a>.</p><table><tr><td>Haven</td><td>Diepte | meter</td></tr></table>`,
    },
    blocks: [
      { type: 'header', name: 'intro', header: { en: 'Blocks', nl: 'Blokken' } },
      { type: 'text', name: 'text1', body: { en: '<p>A text block.</p>', nl: '<p>Een tekstblok.</p>' } },
      { type: 'survey_thurstone', name: 'poll', header: { en: 'Do you like harbours?' }, props: { answers: ['yes', 'no'] } },
      { type: 'callout', name: 'note', header: { en: 'Tip', nl: 'Tip' }, body: { en: '<p>Visit at dawn.</p>', nl: '<p>Kom bij dageraad.</p>' }, props: { tone: 'info' } },
      {
        type: 'gallery',
        name: 'pics',
        props: {
          images: [
            { src: '/media/attachment/harbour-dawn.png', alt: { en: 'The harbour at dawn', nl: 'De haven bij dageraad' } },
            { src: '/media/inline/harbour-small.png', alt: { en: 'The small harbour', nl: 'De kleine haven' } },
          ],
        },
      },
    ],
    publicationStart: ago(20),
    modified: ago(1),
  });

  const inner = await insertResource(db, {
    name: DEMO.pageInner,
    category: guide,
    title: { en: 'Inner guide', nl: 'Binnenste gids' },
    summary: { en: 'The deepest page in the chain.', nl: 'De diepste pagina in de keten.' },
    body: { en: '<p>Inner body.</p>', nl: '<p>Binnenste tekst.</p>' },
    publicationStart: ago(15),
  });
  const middle = await insertResource(db, {
    name: DEMO.pageMiddle,
    category: guide,
    title: { en: 'Middle guide', nl: 'Middelste gids' },
    summary: { en: 'Referenced by the outer guide.', nl: 'Waarnaar de buitenste gids verwijst.' },
    body: { en: '<p>Middle body.</p>', nl: '<p>Middelste tekst.</p>' },
    blocks: [
      { type: 'header', name: 'mh', header: { en: 'Middle section', nl: 'Middelste sectie' } },
      { type: 'page', name: 'to_inner', rsc_id: inner },
    ],
    license: 'CC0 1.0',
    publicationStart: ago(14),
  });
  await insertResource(db, {
    name: DEMO.pageOuter,
    category: guide,
    title: { en: 'Outer guide', nl: 'Buitenste gids' },
    summary: { en: 'A guide that embeds another guide.', nl: 'Een gids die een andere gids bevat.' },
    body: { en: '<p>Outer body.</p>', nl: '<p>Buitenste tekst.</p>' },
    blocks: [{ type: 'page', name: 'to_middle', rsc_id: middle }],
    publicationStart: ago(13),
  });

  const privateArticle = await insertResource(db, {
    name: DEMO.private,
    category: article,
    visibility: 'members',
    title: { en: 'Members only: salaries', nl: 'Alleen leden: salarissen' },
    summary: { en: 'SECRET-PRIVATE-SUMMARY', nl: 'GEHEIM-PRIVE' },
    body: { en: '<p>SECRET-PRIVATE-BODY</p>' },
  });
  await insertResource(db, {
    name: DEMO.privateRef,
    category: article,
    title: { en: 'Links to a private page', nl: 'Verwijst naar een privépagina' },
    body: { en: '<p>Before the private reference.</p>', nl: '<p>Voor de privéverwijzing.</p>' },
    blocks: [{ type: 'page', name: 'secret', rsc_id: privateArticle }],
    publicationStart: ago(12),
  });
  await insertResource(db, { name: DEMO.unpublished, category: article, isPublished: false, title: { en: 'Draft: SECRET-DRAFT' }, body: { en: '<p>SECRET-DRAFT-BODY</p>' } });
  await insertResource(db, { name: DEMO.scheduled, category: article, publicationStart: new Date(Date.now() + 30 * DAY), title: { en: 'Scheduled: SECRET-FUTURE' } });
  await insertResource(db, { name: DEMO.expired, category: article, publicationStart: ago(60), publicationEnd: ago(1), title: { en: 'Expired: SECRET-EXPIRED' } });
  await insertResource(db, {
    name: DEMO.noindex,
    category: article,
    seoNoindex: true,
    title: { en: 'Not for search engines', nl: 'Niet voor zoekmachines' },
    summary: { en: 'Readable directly, never listed.', nl: 'Direct leesbaar, nooit vermeld.' },
    body: { en: '<p>Noindex body.</p>' },
    publicationStart: ago(9),
  });
  await insertResource(db, { name: DEMO.pressRelease, category: press, title: { en: 'Press release: harbour reopens', nl: 'Persbericht: haven weer open' }, body: { en: '<p>Press text.</p>' }, publicationStart: ago(8) });
  await insertResource(db, { name: 'press_release_two', category: press, title: { en: 'Press release: new quay' }, publicationStart: ago(7) });
  const englishOnly = await insertResource(db, {
    name: DEMO.englishOnly,
    category: article,
    title: { en: 'Only in English' },
    summary: { en: 'This article has no Dutch translation.' },
    body: { en: '<p>English body only.</p>' },
    publicationStart: ago(6),
  });
  await insertResource(db, {
    name: DEMO.dutchOnly,
    category: article,
    title: { nl: 'Alleen in het Nederlands' },
    summary: { nl: 'Dit artikel bestaat alleen in het Nederlands.' },
    body: { nl: '<p>Alleen Nederlandse tekst.</p>' },
    publicationStart: ago(5),
  });

  await insertEdges(db, [
    { subject: welcome, predicate: author, object: ada },
    { subject: welcome, predicate: subject, object: harbours },
    { subject: welcome, predicate: subject, object: openData },
    { subject: welcome, predicate: depiction, object: photo },
    { subject: showcase, predicate: author, object: grace },
    { subject: showcase, predicate: subject, object: harbours },
    { subject: englishOnly, predicate: author, object: ada },
    { subject: photo, predicate: subject, object: harbours },
    { subject: privateArticle, predicate: subject, object: openData },
  ]);

  // One popular keyword: 300 short notes tagged with it.
  const notes: number[] = [];
  for (let i = 1; i <= 300; i++) {
    notes.push(
      await insertResource(db, {
        category: article,
        title: { en: `Open data note ${i}`, nl: `Open-datanotitie ${i}` },
        summary: { en: `Note ${i} about open harbour data.`, nl: `Notitie ${i} over open havendata.` },
        body: { en: `<p>Harbour dataset number ${i}.</p>` },
        publicationStart: new Date(Date.now() - (100 + i) * DAY),
        modified: new Date(Date.now() - (50 + (i % 17)) * DAY),
      }),
    );
  }
  await insertEdges(db, notes.map((id, i) => ({ subject: id, predicate: subject, object: openData, seq: i + 1 })));
  await insertEdges(db, notes.slice(0, 40).map((id) => ({ subject: id, predicate: author, object: grace })));
  // Fresh planner statistics, as a host's autovacuum would gather them.
  await sql`ANALYZE`.execute(db);
}
