/**
 * Strapi's rich text as the body HTML the plugin serves (and composes to Markdown with turndown),
 * rendered by PostgreSQL functions so that a view reads it live: the **blocks** JSON of Strapi 5's
 * blocks editor, and the **Markdown** of its rich-text field. One definition of each rule, in SQL:
 *
 * | blocks node | HTML |
 * |---|---|
 * | `paragraph` | `<p>…</p>` |
 * | `heading` (`level` 1–6) | `<hN>…</hN>` |
 * | `list` (`format` `ordered`/`unordered`; a `list` among its children nests in the item before it) | `<ol>`/`<ul>` of `<li>` |
 * | `list-item` | `<li>…</li>` |
 * | `quote` | `<blockquote><p>…</p></blockquote>` |
 * | `code` (`language`) | `<pre><code class="language-…">…</code></pre>` |
 * | `image` (`image.url`, `alternativeText`, `caption`) | `<figure><img src alt><figcaption>…</figcaption></figure>`; a path URL gets the upload base |
 * | `link` (`url`) | `<a href="…">…</a>` |
 * | `text` (`bold`, `italic`, `strikethrough`, `code`; `underline` kept as text) | `<strong>`, `<em>`, `<del>`, `<code>` |
 *
 * Any other node (an unknown type, a node that is not an object) is left out of the HTML and named by
 * `strapi_blocks_problems`, which the recipe's `access_notice` shows; a body that is not a JSON array
 * renders nothing and is named too. Never raises.
 *
 * The Markdown of a rich-text field: ATX headings, `-`/`*`/`+` and `1.` lists, `>` quotes, fenced code,
 * paragraphs (blank lines), and inline `**strong**`, `*em*`/`_em_`, `` `code` ``, links and images; HTML in
 * it is escaped (served as text).
 */
export function renderSql(s: string): string {
  return `-- Strapi's rich text to HTML (blocks and Markdown).

CREATE OR REPLACE FUNCTION ${s}.strapi_escape(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT replace(replace(replace(replace(coalesce(t, ''), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;')
$$;

-- A URL as an attribute: a path on the upload base, an http(s) or mailto URL as it is, anything else dropped.
CREATE OR REPLACE FUNCTION ${s}.strapi_url(url text, base text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN url ~ '^/[^/]' THEN ${s}.strapi_escape(coalesce(base, '') || url)
    WHEN url ~* '^(https?:|mailto:)' THEN ${s}.strapi_escape(url) END
$$;

CREATE OR REPLACE FUNCTION ${s}.strapi_figure(url text, alt text, caption text, base text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN ${s}.strapi_url(url, base) IS NULL THEN '' ELSE
    '<figure><img src="' || ${s}.strapi_url(url, base) || '" alt="' || ${s}.strapi_escape(alt) || '">'
    || CASE WHEN coalesce(btrim(caption), '') <> '' THEN '<figcaption>' || ${s}.strapi_escape(caption) || '</figcaption>' ELSE '' END
    || '</figure>' END
$$;

-- The plain text of nodes (a code block's, and the search vectors').
CREATE OR REPLACE FUNCTION ${s}.strapi_blocks_text(nodes jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(string_agg(t #>> '{}', ' '), '') FROM jsonb_path_query(CASE WHEN jsonb_typeof(nodes) IN ('array', 'object') THEN nodes ELSE '[]' END, 'strict $.**.text') t
  WHERE jsonb_typeof(t) = 'string'
$$;

CREATE OR REPLACE FUNCTION ${s}.strapi_blocks_html(nodes jsonb, base text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n jsonb;
  c jsonb;
  out text := '';
  inside text;
  items text[];
  t text;
  level int;
BEGIN
  IF nodes IS NULL OR jsonb_typeof(nodes) <> 'array' THEN
    RETURN '';
  END IF;
  FOR n IN SELECT e FROM jsonb_array_elements(nodes) e LOOP
    CONTINUE WHEN jsonb_typeof(n) <> 'object';
    CASE n ->> 'type'
    WHEN 'text' THEN
      t := replace(${s}.strapi_escape(n ->> 'text'), E'\\n', '<br>');
      IF (n -> 'code') = 'true' THEN t := '<code>' || t || '</code>'; END IF;
      IF (n -> 'strikethrough') = 'true' THEN t := '<del>' || t || '</del>'; END IF;
      IF (n -> 'italic') = 'true' THEN t := '<em>' || t || '</em>'; END IF;
      IF (n -> 'bold') = 'true' THEN t := '<strong>' || t || '</strong>'; END IF;
      out := out || t;
    WHEN 'link' THEN
      inside := ${s}.strapi_blocks_html(n -> 'children', base);
      out := out || CASE WHEN ${s}.strapi_url(n ->> 'url', base) IS NULL THEN inside
        ELSE '<a href="' || ${s}.strapi_url(n ->> 'url', base) || '">' || inside || '</a>' END;
    WHEN 'paragraph' THEN
      out := out || '<p>' || ${s}.strapi_blocks_html(n -> 'children', base) || '</p>';
    WHEN 'heading' THEN
      level := CASE WHEN (n ->> 'level') ~ '^[1-6]$' THEN (n ->> 'level')::int ELSE 2 END;
      out := out || '<h' || level || '>' || ${s}.strapi_blocks_html(n -> 'children', base) || '</h' || level || '>';
    WHEN 'list' THEN
      items := '{}';
      IF jsonb_typeof(n -> 'children') = 'array' THEN
        FOR c IN SELECT e FROM jsonb_array_elements(n -> 'children') e LOOP
          IF jsonb_typeof(c) = 'object' AND c ->> 'type' = 'list' AND cardinality(items) > 0 THEN
            items[cardinality(items)] := items[cardinality(items)] || ${s}.strapi_blocks_html(jsonb_build_array(c), base);
          ELSIF jsonb_typeof(c) = 'object' AND c ->> 'type' = 'list-item' THEN
            items := items || ${s}.strapi_blocks_html(c -> 'children', base);
          ELSE
            items := items || ${s}.strapi_blocks_html(jsonb_build_array(c), base);
          END IF;
        END LOOP;
      END IF;
      t := CASE WHEN n ->> 'format' = 'ordered' THEN 'ol' ELSE 'ul' END;
      out := out || '<' || t || '>' || coalesce((SELECT string_agg('<li>' || i || '</li>', '' ORDER BY o) FROM unnest(items) WITH ORDINALITY AS x (i, o)), '') || '</' || t || '>';
    WHEN 'list-item' THEN
      out := out || '<li>' || ${s}.strapi_blocks_html(n -> 'children', base) || '</li>';
    WHEN 'quote' THEN
      out := out || '<blockquote><p>' || ${s}.strapi_blocks_html(n -> 'children', base) || '</p></blockquote>';
    WHEN 'code' THEN
      out := out || '<pre><code' || CASE WHEN (n ->> 'language') ~ '^[A-Za-z0-9_+#.-]{1,40}$' THEN ' class="language-' || (n ->> 'language') || '"' ELSE '' END
        || '>' || ${s}.strapi_escape((SELECT string_agg(x #>> '{}', '') FROM jsonb_path_query(n, 'strict $.children.**.text') x WHERE jsonb_typeof(x) = 'string')) || '</code></pre>';
    WHEN 'image' THEN
      out := out || ${s}.strapi_figure(n -> 'image' ->> 'url', coalesce(n -> 'image' ->> 'alternativeText', ''), n -> 'image' ->> 'caption', base);
    ELSE
      NULL; -- not rendered: strapi_blocks_problems names it
    END CASE;
  END LOOP;
  RETURN out;
END
$$;

-- What of a blocks value is not rendered: the node types the renderer does not know, or a value that is not an array.
CREATE OR REPLACE FUNCTION ${s}.strapi_blocks_problems(nodes jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN nodes IS NULL OR nodes = 'null'::jsonb THEN NULL
    WHEN jsonb_typeof(nodes) <> 'array' THEN 'the blocks value is not a JSON array (nothing of it is served)'
    ELSE (SELECT 'blocks node types not rendered (left out): ' || string_agg(DISTINCT coalesce(t, '(no type)'), ', ')
      FROM (SELECT n ->> 'type' AS t FROM jsonb_path_query(nodes, 'strict $.** ? (@.type() == "object" && (exists(@.type) || exists(@.children)))') n) x
      WHERE t IS NULL OR t NOT IN ('paragraph', 'heading', 'list', 'list-item', 'quote', 'code', 'image', 'link', 'text'))
  END
$$;

-- Inline Markdown on escaped text: images, links, code, strong, emphasis.
CREATE OR REPLACE FUNCTION ${s}.strapi_markdown_inline(t text, base text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  m text[];
BEGIN
  t := ${s}.strapi_escape(t);
  LOOP
    m := regexp_match(t, '!\\[([^\\]]*)\\]\\(([^)\\s]+)\\)');
    EXIT WHEN m IS NULL;
    t := regexp_replace(t, '!\\[([^\\]]*)\\]\\(([^)\\s]+)\\)',
      replace(CASE WHEN ${s}.strapi_url(replace(m[2], '&amp;', '&'), base) IS NULL THEN m[1]
        ELSE '<img src="' || ${s}.strapi_url(replace(m[2], '&amp;', '&'), base) || '" alt="' || m[1] || '">' END, '\\', '\\\\'));
  END LOOP;
  LOOP
    m := regexp_match(t, '\\[([^\\]]+)\\]\\(([^)\\s]+)\\)');
    EXIT WHEN m IS NULL;
    t := regexp_replace(t, '\\[([^\\]]+)\\]\\(([^)\\s]+)\\)',
      replace(CASE WHEN ${s}.strapi_url(replace(m[2], '&amp;', '&'), base) IS NULL THEN m[1]
        ELSE '<a href="' || ${s}.strapi_url(replace(m[2], '&amp;', '&'), base) || '">' || m[1] || '</a>' END, '\\', '\\\\'));
  END LOOP;
  t := regexp_replace(t, '\`([^\`]+)\`', '<code>\\1</code>', 'g');
  t := regexp_replace(t, '\\*\\*([^*]+)\\*\\*', '<strong>\\1</strong>', 'g');
  t := regexp_replace(t, '__([^_]+)__', '<strong>\\1</strong>', 'g');
  t := regexp_replace(t, '\\*([^*\\s][^*]*)\\*', '<em>\\1</em>', 'g');
  t := regexp_replace(t, '(^|\\W)_([^_\\s][^_]*)_(\\W|$)', '\\1<em>\\2</em>\\3', 'g');
  RETURN t;
END
$$;

CREATE OR REPLACE FUNCTION ${s}.strapi_markdown_html(md text, base text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  out text := '';
  para text[] := '{}';
  list text;
  items text[] := '{}';
  fence text;
  code text[];
  line text;
  m text[];
BEGIN
  FOR line IN SELECT l FROM regexp_split_to_table(replace(coalesce(md, ''), E'\\r', ''), E'\\n') l LOOP
    IF fence IS NOT NULL THEN
      IF line ~ '^\\s*\`\`\`' THEN
        out := out || '<pre><code' || CASE WHEN fence <> '' THEN ' class="language-' || fence || '"' ELSE '' END || '>'
          || ${s}.strapi_escape(array_to_string(code, E'\\n')) || '</code></pre>';
        fence := NULL;
      ELSE
        code := code || line;
      END IF;
      CONTINUE;
    END IF;
    m := regexp_match(line, '^\\s*([-*+]|\\d+[.)])\\s+(.*)$');
    IF m IS NOT NULL THEN
      IF cardinality(para) > 0 THEN
        out := out || '<p>' || ${s}.strapi_markdown_inline(array_to_string(para, ' '), base) || '</p>';
        para := '{}';
      END IF;
      IF list IS NOT NULL AND list <> (CASE WHEN m[1] ~ '^\\d' THEN 'ol' ELSE 'ul' END) THEN
        out := out || '<' || list || '>' || (SELECT string_agg('<li>' || i || '</li>', '' ORDER BY o) FROM unnest(items) WITH ORDINALITY x (i, o)) || '</' || list || '>';
        items := '{}';
      END IF;
      list := CASE WHEN m[1] ~ '^\\d' THEN 'ol' ELSE 'ul' END;
      items := items || ${s}.strapi_markdown_inline(m[2], base);
      CONTINUE;
    END IF;
    IF list IS NOT NULL THEN
      out := out || '<' || list || '>' || (SELECT string_agg('<li>' || i || '</li>', '' ORDER BY o) FROM unnest(items) WITH ORDINALITY x (i, o)) || '</' || list || '>';
      list := NULL;
      items := '{}';
    END IF;
    IF line ~ '^\\s*$' OR line ~ '^\\s*\`\`\`' OR line ~ '^#{1,6}\\s' OR line ~ '^>' THEN
      IF cardinality(para) > 0 THEN
        out := out || '<p>' || ${s}.strapi_markdown_inline(array_to_string(para, ' '), base) || '</p>';
        para := '{}';
      END IF;
    END IF;
    IF line ~ '^\\s*\`\`\`' THEN
      fence := coalesce(substring(line from '^\\s*\`\`\`\\s*([A-Za-z0-9_+#.-]{1,40})'), '');
      code := '{}';
    ELSIF line ~ '^#{1,6}\\s' THEN
      m := regexp_match(line, '^(#{1,6})\\s+(.*?)\\s*#*\\s*$');
      out := out || '<h' || length(m[1]) || '>' || ${s}.strapi_markdown_inline(m[2], base) || '</h' || length(m[1]) || '>';
    ELSIF line ~ '^>' THEN
      out := out || '<blockquote><p>' || ${s}.strapi_markdown_inline(regexp_replace(line, '^>\\s?', ''), base) || '</p></blockquote>';
    ELSIF line !~ '^\\s*$' THEN
      para := para || btrim(line);
    END IF;
  END LOOP;
  IF list IS NOT NULL THEN
    out := out || '<' || list || '>' || (SELECT string_agg('<li>' || i || '</li>', '' ORDER BY o) FROM unnest(items) WITH ORDINALITY x (i, o)) || '</' || list || '>';
  END IF;
  IF fence IS NOT NULL THEN
    out := out || '<pre><code>' || ${s}.strapi_escape(array_to_string(code, E'\\n')) || '</code></pre>';
  END IF;
  IF cardinality(para) > 0 THEN
    out := out || '<p>' || ${s}.strapi_markdown_inline(array_to_string(para, ' '), base) || '</p>';
  END IF;
  RETURN out;
END
$$;
`;
}
