import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { PLOT_NAMES } from '../src/engine/plots';
import { FeatureSelection, ModelKey, ModelsConsidered, Thoroughness } from '../src/engine/types';

/**
 * The enumerations of the API are declared once: thoroughness, modelsConsidered, featureSelection and the model keys
 * as const objects in src/engine/types.ts, each plot key as the `name` of its kind (src/engine/plots/<kind>.ts).
 * Everything else names them (`Thoroughness.Preliminary`, `ROC_CURVE.name`) or reads them (`Object.values(...)`,
 * `PLOT_NAMES`). No string of theirs may be written as a literal in the service's code (tests aside) or in the
 * clients' hand-written code; generated files (the clients' types) are left out.
 */
const ROOT = path.resolve(__dirname, '..');

const ENUMS: Record<string, readonly string[]> = {
  thoroughness: Object.values(Thoroughness),
  modelsConsidered: Object.values(ModelsConsidered),
  featureSelection: Object.values(FeatureSelection),
  modelKey: Object.values(ModelKey),
  plotKey: PLOT_NAMES,
};

/** The literals that are not the enums' values though they are spelled alike, each with the reason. */
const NOT_THE_ENUM: { file: string; value: string; why: string }[] = [
  ...['src/engine/selection.ts', 'src/engine/grid.ts', 'src/engine/analysis/run.ts'].map((file) => ({
    file,
    value: 'all',
    why: "the selector kind 'all' (SelectorSpec: no selection, every feature), the engine's own",
  })),
  { file: 'src/engine/analysis/final-models.ts', value: 'all', why: "selectionBatch's cache key 'all' (the selection on every sample)" },
  {
    file: 'clients/python/signet_client/jadbio.py',
    value: '*',
    why: "JADBio's client's own signatures (thoroughness, models_considered, feature_selection defaults), copied as JADBio wrote them",
  },
  {
    file: 'clients/python/signet_client/client.py',
    value: '*',
    why: "its parameters' defaults, the same as JADBio's (its jadbio layer passes them on); Python cannot import the engine",
  },
];

function files(dir: string, keep: (file: string) => boolean): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'generated' ? [] : files(full, keep);
    return keep(full) ? [path.relative(ROOT, full).split(path.sep).join('/')] : [];
  });
}

/** Where an enum's value may stand as a literal: its declaration. */
function isDeclaration(file: string, node: ts.Node): boolean {
  const property = ts.isPropertyAssignment(node.parent) && node.parent.initializer === node ? node.parent.name.getText() : undefined;
  if (file === 'src/engine/types.ts') return property !== undefined;
  return file.startsWith('src/engine/plots/') && (property === 'name' || property === 'schemaName');
}

interface Literal {
  file: string;
  line: number;
  value: string;
}

/** The string literals of a TypeScript file (quoted and untagged template strings without substitutions). */
function typescriptLiterals(file: string): Literal[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: Literal[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !isDeclaration(file, node)) {
      out.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, value: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The string literals of a Python file ('...' and "..." on one line). */
function pythonLiterals(file: string): Literal[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  return lines.flatMap((text, i) => [...text.matchAll(/(["'])((?:(?!\1)[^\\]|\\.)*)\1/g)].map((m) => ({ file, line: i + 1, value: m[2] })));
}

describe('the enumerations of the API', () => {
  const values = new Map(Object.entries(ENUMS).flatMap(([name, list]) => list.map((v) => [v, name] as const)));

  it('are read from their one declaration: none of their strings is a literal elsewhere', () => {
    const service = files(path.join(ROOT, 'src'), (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
    const typescriptClient = files(path.join(ROOT, 'clients', 'typescript', 'src'), (f) => f.endsWith('.ts') && !f.endsWith('schema.ts'));
    const pythonClient = files(path.join(ROOT, 'clients', 'python', 'signet_client'), (f) => f.endsWith('.py') && !f.endsWith('types.py'));
    expect(service.length).toBeGreaterThan(200);
    expect(typescriptClient).toEqual(expect.arrayContaining(['clients/typescript/src/client.ts']));
    expect(pythonClient).toEqual(expect.arrayContaining(['clients/python/signet_client/client.py']));
    const found = [...service, ...typescriptClient]
      .flatMap(typescriptLiterals)
      .concat(pythonClient.flatMap(pythonLiterals))
      .filter((l) => values.has(l.value))
      .filter((l) => !NOT_THE_ENUM.some((n) => n.file === l.file && (n.value === '*' || n.value === l.value)))
      .map((l) => `${l.file}:${l.line} '${l.value}' (${values.get(l.value)})`);
    expect(found).toEqual([]);
  });

  it('are found where they are written as literals (the check is not blind)', () => {
    const dir = fs.mkdtempSync(path.join(ROOT, 'test', '.enum-probe-'));
    try {
      const probe = path.join(dir, 'probe.ts');
      fs.writeFileSync(probe, "const a = 'typical';\nconst b = `ROC Curve`;\nconst c = { name: 'best' };\nconst d = 'Typical';\n");
      const found = typescriptLiterals(path.relative(ROOT, probe)).filter((l) => values.has(l.value));
      expect(found.map((l) => [l.line, l.value])).toEqual([
        [1, 'typical'],
        [2, 'ROC Curve'],
        [3, 'best'],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
