// Writes the generated reference pages of docs/ (`npm run docs`); test/docs-generated.test.ts checks them.
import { writeFileSync } from 'node:fs';
import { GENERATED_DOCS } from './generated-docs.js';

for (const [file, render] of Object.entries(GENERATED_DOCS)) writeFileSync(file, render());
