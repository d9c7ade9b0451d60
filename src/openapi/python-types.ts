import type { OpenAPIObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';

/**
 * The Python client's payload types (clients/python/signet_client/types.py), written from the OpenAPI document: one
 * TypedDict (or alias) per component schema, same names and fields, and one per object the components hold inline
 * (named `<Parent><Field>`, `<Parent><Field>Item` for the objects of an array). A field the schema does not require
 * is in the `total=False` part of its type; a field whose name is not a Python identifier (`class`, "ROC Curve") is
 * written in TypedDict's functional form. Standard library only (Python 3.9): no `NotRequired`.
 * `npm run generate:python` writes the file; test/client-types.e2e-spec.ts fails when the committed one differs.
 */
type Schema = SchemaObject | ReferenceObject;

/** Where the generated file is, from the repository's root. */
export const PYTHON_TYPES = 'clients/python/signet_client/types.py';

const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const isIdentifier = (name: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);
const capitalized = (name: string) =>
  name.replace(/[^A-Za-z0-9]+(\w)/g, (_, c: string) => c.toUpperCase()).replace(/^./, (c) => c.toUpperCase());
const quote = (text: string) => JSON.stringify(text);
const comment = (text: string | undefined, indent = '') => (text ? [`${indent}#: ${text.replace(/\s+/g, ' ')}`] : []);

const HEADER = `"""
The payloads of the Signet API as \`\`TypedDict\`\` s: one per component schema of the OpenAPI document
(\`\`/api/public/v1/openapi.json\`\`), with the same names and fields, and one per object a schema holds inline
(\`\`<Parent><Field>\`\`). Ids are strings of digits, as the API writes them. A key that the API leaves out when it
does not apply (\`\`description\`\`, \`\`datasetId\`\` of an unfinished task, \`\`progress\`\` of an analysis not
running ...) is in the \`\`total=False\`\` part of its type. At run time they are plain \`\`dict\`\` s.

GENERATED from the OpenAPI document by src/openapi/python-types.ts (\`\`npm run generate:python\`\`): do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union
`;

class Writer {
  private readonly blocks: string[] = [];
  private readonly written = new Set<string>();
  private readonly writing = new Set<string>();

  constructor(private readonly components: Record<string, Schema>) {}

  /** The Python text of every component, each after what it names (aliases and functional forms run at import). */
  text(): string {
    for (const name of Object.keys(this.components)) this.component(name);
    const index = Object.keys(this.components).map((name) => `    ${quote(name)}: ${name},`);
    const table = ['#: Every component schema of the document, by name.', 'COMPONENTS: Dict[str, Any] = {', ...index, '}'];
    return [HEADER, ...this.blocks, table.join('\n')].join('\n\n\n') + '\n';
  }

  private component(name: string): void {
    if (this.written.has(name) || this.writing.has(name)) return;
    this.writing.add(name);
    this.define(name, this.components[name]);
    this.writing.delete(name);
    this.written.add(name);
  }

  /** Writes `name` as the type of `schema`. */
  private define(name: string, schema: Schema): void {
    const s = schema as SchemaObject;
    if (s.type === 'object' && s.properties) return this.typedDict(name, s);
    if (s.allOf) return this.extension(name, s);
    this.blocks.push([...comment(s.description), `${name} = ${this.type(s, name)}`].join('\n'));
  }

  /** The Python type of `schema`; `name` names the inline objects it holds. */
  private type(schema: Schema, name: string): string {
    if ('$ref' in schema) {
      const target = schema.$ref.split('/').pop() as string;
      this.component(target);
      return target;
    }
    const s = schema;
    const nullable = (t: string) => (s.nullable ? `Union[${t}, None]` : t);
    if (s.oneOf) return `Union[${s.oneOf.map((m, i) => this.type(m, `${name}${i + 1}`)).join(', ')}]`;
    // a named schema with a description of its use: `{ allOf: [{ $ref }], description }`
    if (s.allOf?.length === 1) return this.type(s.allOf[0], name);
    if (s.enum) return nullable(`Literal[${s.enum.map((v) => JSON.stringify(v)).join(', ')}]`);
    switch (s.type) {
      case 'string':
        return nullable('str');
      case 'integer':
        return nullable('int');
      case 'number':
        return nullable('float');
      case 'boolean':
        return nullable('bool');
      case 'array':
        return nullable(`List[${this.type(s.items ?? {}, `${name}Item`)}]`);
      case 'object':
        if (s.properties) {
          this.typedDict(name, s);
          return name;
        }
        if (s.additionalProperties && typeof s.additionalProperties === 'object') {
          return `Dict[str, ${this.type(s.additionalProperties, `${name}Value`)}]`;
        }
        return 'Dict[str, Any]';
      default:
        return 'Any';
    }
  }

  /** An object with properties: a TypedDict, its optional fields in a `total=False` part. */
  private typedDict(name: string, s: SchemaObject, bases: string[] = []): void {
    const required = new Set(s.required ?? []);
    const fields = Object.entries(s.properties ?? {}).map(([field, schema]) => ({
      field,
      required: required.has(field),
      type: this.type(schema, `${name}${capitalized(field)}`),
      description: (schema as SchemaObject).description,
    }));
    const must = fields.filter((f) => f.required);
    const may = fields.filter((f) => !f.required);
    const doc = comment(s.description);
    if (!must.length || !may.length) {
      this.blocks.push([...doc, ...this.dict(name, fields, bases, must.length === 0 && may.length > 0)].join('\n'));
      return;
    }
    this.blocks.push(this.dict(`_${name}Base`, must, bases, false).join('\n'));
    this.blocks.push([...doc, ...this.dict(name, may, [`_${name}Base`], true)].join('\n'));
  }

  /** One TypedDict: class syntax when every field is an identifier, the functional form otherwise. */
  private dict(name: string, fields: { field: string; type: string; description?: string }[], bases: string[], partial: boolean): string[] {
    const total = partial ? ', total=False' : '';
    if (fields.every((f) => isIdentifier(f.field))) {
      const body = fields.flatMap((f) => [...comment(f.description, '    '), `    ${f.field}: ${f.type}`]);
      return [`class ${name}(${[...(bases.length ? bases : ['TypedDict'])].join(', ')}${total}):`, ...(body.length ? body : ['    pass'])];
    }
    const entries = fields.flatMap((f) => [...comment(f.description, '        '), `        ${quote(f.field)}: ${f.type},`]);
    const own = bases.length ? `_${name}Own` : name;
    const functional = [
      `${own} = TypedDict(`,
      `    ${quote(own)},`,
      '    {',
      ...entries,
      `    }${total ? ',\n    total=False' : ''},`,
      ')',
    ];
    return bases.length ? [...functional, '', '', `class ${name}(${[...bases, own].join(', ')}):`, '    pass'] : functional;
  }

  /** `allOf` of named schemas and inline objects: a TypedDict that extends the former with the fields of the latter. */
  private extension(name: string, s: SchemaObject): void {
    const parts = s.allOf ?? [];
    const bases = parts.filter((p): p is ReferenceObject => '$ref' in p).map((p) => this.type(p, name));
    const own = parts.filter((p): p is SchemaObject => !('$ref' in p));
    const properties = Object.assign({}, ...own.map((p) => p.properties ?? {})) as Record<string, Schema>;
    const required = own.flatMap((p) => p.required ?? []);
    this.typedDict(name, { type: 'object', properties, required, description: s.description }, bases);
  }
}

/** The text of types.py for `document`. */
export function pythonTypes(document: OpenAPIObject): string {
  return new Writer(document.components?.schemas ?? {}).text();
}
