import * as fs from 'node:fs';
import * as path from 'node:path';
import { previewDocument } from '../src/openapi/preview';
import { PYTHON_TYPES, pythonTypes } from '../src/openapi/python-types';
import { API, createTestApp } from './utils';

/**
 * The Python client's payload types are generated from the OpenAPI document (src/openapi/python-types.ts): the
 * committed file must be what the generator writes from the document the service serves. After a change to a
 * payload: `npm run generate:python` (the TypeScript client's types: test/typescript-client-package.e2e-spec.ts).
 */
const ROOT = path.resolve(__dirname, '..');

it('has the committed Python types that npm run generate:python writes from the served document', async () => {
  const t = await createTestApp();
  try {
    const served = (await t.http().get(`${API}/openapi.json`)).body as Parameters<typeof pythonTypes>[0];
    const committed = fs.readFileSync(path.join(ROOT, PYTHON_TYPES), 'utf8');
    // a line-by-line comparison first: the first difference is what the failure shows
    const wanted = pythonTypes(served).split('\n');
    const have = committed.split('\n');
    const first = wanted.findIndex((line, i) => line !== have[i]);
    expect({ line: first + 1, committed: have[first], generated: wanted[first] }).toEqual({
      line: 0,
      committed: undefined,
      generated: undefined,
    });
    expect(committed).toBe(pythonTypes(served));
    // the script's document (no database) is the served one
    expect(pythonTypes(await previewDocument())).toBe(committed);
  } finally {
    await t.close();
  }
});
