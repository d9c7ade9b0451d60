import {
  AttributeMessage,
  AttributeType,
  DataType,
  DataTypeCode,
  Dimension,
  ModelMessage,
  NodeMessage,
  TensorMessage,
  ValueInfoMessage,
} from './proto';

/** The operator sets an exported graph imports: ONNX's own, and its classical-ML domain (LabelEncoder). */
export const OPSET = 17;
export const ML_OPSET = 2;
const IR_VERSION = 8;

/** An attribute's value: numbers are integers unless wrapped as `{ float }`. */
export type AttributeValue = number | number[] | string | string[] | { float: number } | { tensor: TensorMessage };

const utf8 = (s: string): Uint8Array => Buffer.from(s, 'utf8');

/** Little-endian bytes of doubles (TensorProto.raw_data). */
function doubleBytes(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(8 * values.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat64(8 * i, values[i], true);
  return out;
}

/** Little-endian bytes of 64-bit integers (TensorProto.raw_data). */
function int64Bytes(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(8 * values.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setBigInt64(8 * i, BigInt(values[i]), true);
  return out;
}

function attribute(name: string, value: AttributeValue): AttributeMessage {
  if (typeof value === 'number') return { name, type: AttributeType.INT, i: value };
  if (typeof value === 'string') return { name, type: AttributeType.STRING, s: utf8(value) };
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return { name, type: AttributeType.STRINGS, strings: value.map(utf8) };
    return { name, type: AttributeType.INTS, ints: value };
  }
  if ('float' in value) return { name, type: AttributeType.FLOAT, f: value.float };
  return { name, type: AttributeType.TENSOR, t: value.tensor };
}

function valueInfo(name: string, elemType: DataTypeCode, dims: Dimension[], docString?: string): ValueInfoMessage {
  return {
    name,
    type: {
      tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) } },
    },
    ...(docString ? { docString } : {}),
  };
}

/**
 * Builds one ONNX graph: constants (initializers), nodes, inputs and outputs, each value under a unique name. Every
 * number the graph computes with is a double, as the engine's own arithmetic, so that its outputs match the engine's.
 */
export class GraphBuilder {
  private readonly nodes: NodeMessage[] = [];
  private readonly initializers: TensorMessage[] = [];
  private readonly inputs: ValueInfoMessage[] = [];
  private readonly outputs: ValueInfoMessage[] = [];
  private readonly used = new Set<string>();
  private counter = 0;

  /** `reserved`: names the graph's inputs and outputs take, never given to an inner value. */
  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.used.add(name);
  }

  private fresh(hint: string): string {
    let name: string;
    do name = `${hint}_${this.counter++}`;
    while (this.used.has(name));
    this.used.add(name);
    return name;
  }

  private tensor(hint: string, dims: number[], dataType: DataTypeCode, data: Partial<TensorMessage>): string {
    const name = this.fresh(hint);
    this.initializers.push({ name, dims, dataType, ...data });
    return name;
  }

  /** A constant tensor of doubles (default: a vector). */
  doubles(values: ArrayLike<number>, dims: number[] = [values.length], hint = 'const'): string {
    return this.tensor(hint, dims, DataType.DOUBLE, { rawData: doubleBytes(values) });
  }

  /** A constant double of shape [] (broadcast against anything). */
  scalar(value: number, hint = 'scalar'): string {
    return this.doubles([value], [], hint);
  }

  int64s(values: ArrayLike<number>, dims: number[] = [values.length], hint = 'index'): string {
    return this.tensor(hint, dims, DataType.INT64, { rawData: int64Bytes(values) });
  }

  strings(values: string[], dims: number[] = [values.length], hint = 'text'): string {
    return this.tensor(hint, dims, DataType.STRING, { stringData: values.map(utf8) });
  }

  /** One node with one output; returns the output's name. */
  op(opType: string, inputs: string[], attributes: Record<string, AttributeValue> = {}, domain = ''): string {
    return this.opN(opType, inputs, 1, attributes, domain)[0];
  }

  /** One node with `count` outputs. */
  opN(opType: string, inputs: string[], count: number, attributes: Record<string, AttributeValue> = {}, domain = ''): string[] {
    const output = Array.from({ length: count }, () => this.fresh(opType));
    this.nodes.push({
      input: inputs,
      output,
      name: this.fresh(`node_${opType}`),
      opType,
      ...(domain ? { domain } : {}),
      attribute: Object.entries(attributes).map(([name, value]) => attribute(name, value)),
    });
    return output;
  }

  /** A graph input named `name` (reserved in the constructor). */
  input(name: string, elemType: DataTypeCode, dims: Dimension[], docString?: string): string {
    this.inputs.push(valueInfo(name, elemType, dims, docString));
    return name;
  }

  /** Makes `value` a graph output named `name` (reserved in the constructor). */
  output(name: string, value: string, elemType: DataTypeCode, dims: Dimension[], docString?: string): void {
    this.nodes.push({ input: [value], output: [name], name: this.fresh('node_output'), opType: 'Identity', attribute: [] });
    this.outputs.push(valueInfo(name, elemType, dims, docString));
  }

  // arithmetic shorthands
  add(a: string, b: string): string {
    return this.op('Add', [a, b]);
  }
  sub(a: string, b: string): string {
    return this.op('Sub', [a, b]);
  }
  mul(a: string, b: string): string {
    return this.op('Mul', [a, b]);
  }
  div(a: string, b: string): string {
    return this.op('Div', [a, b]);
  }
  /** 1 / (1 + exp(-z)), as the engine computes its logistic function. */
  sigmoid(z: string): string {
    return this.div(this.scalar(1), this.add(this.scalar(1), this.op('Exp', [this.op('Neg', [z])])));
  }
  /** Columns side by side (axis 1). */
  concat(columns: string[]): string {
    return columns.length === 1 ? columns[0] : this.op('Concat', columns, { axis: 1 });
  }
  /** Rows x 1 to a vector of the rows. */
  flatten(column: string): string {
    return this.op('Reshape', [column, this.int64s([-1])]);
  }

  model(meta: { name: string; docString: string; producerVersion: string; metadata: Record<string, string> }): ModelMessage {
    return {
      irVersion: IR_VERSION,
      producerName: 'signet',
      producerVersion: meta.producerVersion,
      docString: meta.docString,
      opsetImport: [
        { domain: '', version: OPSET },
        { domain: 'ai.onnx.ml', version: ML_OPSET },
      ],
      metadataProps: Object.entries(meta.metadata).map(([key, value]) => ({ key, value })),
      graph: {
        name: meta.name,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    };
  }
}
