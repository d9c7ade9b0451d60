import * as fs from 'node:fs';
import { writeFromDocument } from './preview';

/**
 * Writes the OpenAPI document the service serves to the file named on the command line (stdout without one), with
 * no database:
 *   node dist/src/openapi/write-document.js openapi.json
 */
writeFromDocument('the OpenAPI document', (document) => {
  const text = JSON.stringify(document, null, 2) + '\n';
  if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
});
