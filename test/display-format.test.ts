// Two hot-path shortcuts of list items, checked against what they stand in for: `toIso` (integer
// arithmetic for years 1 to 9999) against `Date.prototype.toISOString`, and `plainLine` (returns an
// already-plain line after one test) against the full clean-up it skips.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toIso } from '../src/content/summaries.js';
import { plainLine } from '../src/content/display-text.js';

/** The clean-up `plainLine` does when its text is not already a plain line. */
const cleaned = (text: string) => text.replace(/\p{Cf}+/gu, '').replace(/[\s\p{Cc}]+/gu, ' ').trim();

describe('toIso writes what toISOString writes', () => {
  it('for any instant Date can hold, as a Date and as the string PostgreSQL drivers hand over', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (t) => {
        const d = new Date(t);
        assert.equal(toIso(d), d.toISOString());
        assert.equal(toIso(d.toISOString()), d.toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('at the edges: years 1 and 9999, leap days, the epoch, and the instants just outside four-digit years', () => {
    const edges = [
      '0000-12-31T23:59:59.999Z', '0001-01-01T00:00:00.000Z', '1600-02-29T12:00:00.001Z', '1900-02-28T23:59:59.999Z',
      '1900-03-01T00:00:00.000Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', '2000-02-29T00:00:00.000Z',
      '2024-02-29T23:59:59.999Z', '2100-03-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '+010000-01-01T00:00:00.000Z',
    ];
    for (const iso of edges) assert.equal(toIso(new Date(iso)), new Date(iso).toISOString(), iso);
    assert.throws(() => toIso(new Date(Number.NaN)), RangeError);
  });
});

describe('plainLine', () => {
  it('equals the full clean-up on any text, plain or not', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', '\u200b', '\u200e', '\u2028', '\u0085', '\u0000', '\u001f', '\u007f', '\ufeff', 'é', '😀'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join('');
        assert.equal(plainLine(text), cleaned(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('returns a plain line as it is and cleans the rest', () => {
    for (const plain of ['', 'Harbour', 'Open data at the harbour', 'Ünïcödé 😀 title']) assert.equal(plainLine(plain), plain);
    assert.equal(plainLine('  two\u00a0 spaces\t\ttabs\nlines\u200b '), 'two spaces tabs lines');
    assert.equal(plainLine('a\u0000b'), 'a b');
  });
});
