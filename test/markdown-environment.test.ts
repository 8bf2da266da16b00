import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nunjucks from 'nunjucks';
import { createTemplateEnvironment, templateExists, templateSearchPaths } from '../src/markdown/template-environment.js';
import { blockTemplateName, contentTemplateName, isSurveyBlock } from '../src/markdown/template-selection.js';
import { PLUGIN_TEMPLATE_DIR } from '../src/options.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/markdown-templates');
const dir = (name: string) => path.join(FIXTURES, name);

describe('template environment', () => {
  it('looks templates up in the site directories first, the plugin directory last', () => {
    const env = createTemplateEnvironment([dir('content-override'), dir('custom-block')]);
    assert.deepEqual(templateSearchPaths(env), [dir('content-override'), dir('custom-block'), PLUGIN_TEMPLATE_DIR]);
    assert.match(env.render('_agent_content.njk', { id: 7, title: 'T', body_html: '<p>b</p>', blocks_html: '' }), /^<p>Override of resource 7: T<\/p>/);
    assert.equal(env.render('_agent_block_header.njk', { blk: { header: 'H' } }).trim(), '<h2>H</h2>');
  });

  it('autoescapes text; HTML variables pass through `| safe`', () => {
    const env = createTemplateEnvironment([]);
    const html = env.render('_agent_content.njk', { title: '<script>', summary: 'a & b', body_html: '<p>ok</p>', blocks_html: '<h2>b</h2>' });
    assert.equal(html, '<h1>&lt;script&gt;</h1><p>a &amp; b</p><p>ok</p><h2>b</h2>');
  });

  it('agent-default/ always loads the shipped template, so an override can extend its namesake', () => {
    const env = createTemplateEnvironment([dir('extends-default')]);
    const html = env.render('_agent_content.njk', { title: 'T', summary: 'S', body_html: '', blocks_html: '', license: 'CC0' });
    assert.equal(html, '<h1>T</h1><p><strong>In short:</strong> S</p><p>License: CC0</p>\n<p>Extended footer</p>');
    assert.equal(templateExists(env, 'agent-default/_agent_content.njk'), true);
    assert.equal(templateExists(env, 'agent-default/_agent_block_gallery.njk'), false);
  });

  it('is private: the shared nunjucks configuration is untouched', () => {
    createTemplateEnvironment([dir('content-override')]);
    assert.throws(() => nunjucks.render('_agent_content.njk', {}), /template not found/);
  });

  it('templateExists answers for site, shipped and missing templates, never outside the directories', () => {
    const env = createTemplateEnvironment([dir('custom-block')]);
    assert.equal(templateExists(env, '_agent_block_gallery.njk'), true);
    assert.equal(templateExists(env, '_agent_block_page.njk'), true);
    assert.equal(templateExists(env, '_agent_block_carousel.njk'), false);
    assert.equal(templateExists(env, '../content-override/_agent_content.njk'), false);
    assert.throws(() => templateExists(new nunjucks.Environment(), 'x'), /createTemplateEnvironment/);
  });
});

describe('template selection', () => {
  const env = createTemplateEnvironment([dir('category-variants'), dir('custom-block')]);

  it('content: own category, then ancestors, then generic', () => {
    assert.equal(contentTemplateName(env, ['news', 'article', 'text']), '_agent_content.news.njk');
    assert.equal(contentTemplateName(env, ['article', 'text']), '_agent_content.text.njk');
    assert.equal(contentTemplateName(env, ['event']), '_agent_content.njk');
    assert.equal(contentTemplateName(env, ['../x', 'Bad Name']), '_agent_content.njk');
  });

  it('blocks: category variants, generic, unsupported names and surveys', () => {
    assert.equal(blockTemplateName(env, 'text', ['news', 'article']), '_agent_block_text.news.njk');
    assert.equal(blockTemplateName(env, 'text', ['article']), '_agent_block_text.njk');
    assert.equal(blockTemplateName(env, 'gallery', []), '_agent_block_gallery.njk');
    assert.equal(blockTemplateName(env, 'carousel', []), undefined);
    assert.equal(blockTemplateName(env, 'survey_yes_no', []), undefined);
    for (const bad of ['Text', 'text.njk', '../text', '1text', 'te-xt', '', 42, undefined]) assert.equal(blockTemplateName(env, bad, []), undefined);
    assert.equal(isSurveyBlock('survey_x'), true);
    assert.equal(isSurveyBlock('surveyor'), false);
  });
});
