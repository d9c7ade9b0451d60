// Regenerates the error-code table of docs/api-guide.md from src/common/error-codes.ts (run after `npm run build`):
//   node tools/error-table.js
const fs = require('node:fs');
const path = require('node:path');
const { ERROR_CODES } = require('../dist/src/common/error-codes.js');

const rows = Object.entries(ERROR_CODES).map(([code, condition]) => `| \`${code}\` | ${condition} |`);
const table = ['| code | condition |', '|---|---|', ...rows].join('\n');
const file = path.join(__dirname, '..', 'docs/api-guide.md');
const readme = fs.readFileSync(file, 'utf8');
fs.writeFileSync(
  file,
  readme.replace(
    /<!-- error-codes:start -->[\s\S]*?<!-- error-codes:end -->/,
    `<!-- error-codes:start -->\n${table}\n<!-- error-codes:end -->`,
  ),
);
