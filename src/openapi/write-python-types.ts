import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFromDocument } from './preview';
import { PYTHON_TYPES, pythonTypes } from './python-types';

/**
 * Writes the Python client's payload types from the OpenAPI document (no database needed):
 *   npm run generate:python      (node dist/src/openapi/write-python-types.js [file])
 */
writeFromDocument('the Python types', (document) => {
  const file = process.argv[2] ?? path.resolve(__dirname, '..', '..', '..', PYTHON_TYPES);
  fs.writeFileSync(file, pythonTypes(document));
});
