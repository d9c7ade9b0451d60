import * as protobuf from 'protobufjs';

/**
 * The messages of ONNX's onnx.proto (IR version 8) that an exported pipeline uses, as a protobufjs JSON descriptor:
 * names and field numbers as the ONNX specification defines them (github.com/onnx/onnx, onnx/onnx.proto). Fields the
 * writer never sets (sparse tensors, training information, quantization annotations, sequence and map types) are left
 * out: a reader skips nothing, since they are never written.
 */
const DESCRIPTOR = {
  nested: {
    onnx: {
      nested: {
        AttributeProto: {
          fields: {
            name: { type: 'string', id: 1 },
            f: { type: 'float', id: 2 },
            i: { type: 'int64', id: 3 },
            s: { type: 'bytes', id: 4 },
            t: { type: 'TensorProto', id: 5 },
            g: { type: 'GraphProto', id: 6 },
            floats: { rule: 'repeated', type: 'float', id: 7 },
            ints: { rule: 'repeated', type: 'int64', id: 8 },
            strings: { rule: 'repeated', type: 'bytes', id: 9 },
            docString: { type: 'string', id: 13 },
            type: { type: 'int32', id: 20 },
          },
        },
        ValueInfoProto: {
          fields: {
            name: { type: 'string', id: 1 },
            type: { type: 'TypeProto', id: 2 },
            docString: { type: 'string', id: 3 },
          },
        },
        NodeProto: {
          fields: {
            input: { rule: 'repeated', type: 'string', id: 1 },
            output: { rule: 'repeated', type: 'string', id: 2 },
            name: { type: 'string', id: 3 },
            opType: { type: 'string', id: 4 },
            attribute: { rule: 'repeated', type: 'AttributeProto', id: 5 },
            docString: { type: 'string', id: 6 },
            domain: { type: 'string', id: 7 },
          },
        },
        ModelProto: {
          fields: {
            irVersion: { type: 'int64', id: 1 },
            producerName: { type: 'string', id: 2 },
            producerVersion: { type: 'string', id: 3 },
            domain: { type: 'string', id: 4 },
            modelVersion: { type: 'int64', id: 5 },
            docString: { type: 'string', id: 6 },
            graph: { type: 'GraphProto', id: 7 },
            opsetImport: { rule: 'repeated', type: 'OperatorSetIdProto', id: 8 },
            metadataProps: { rule: 'repeated', type: 'StringStringEntryProto', id: 14 },
          },
        },
        StringStringEntryProto: {
          fields: {
            key: { type: 'string', id: 1 },
            value: { type: 'string', id: 2 },
          },
        },
        GraphProto: {
          fields: {
            node: { rule: 'repeated', type: 'NodeProto', id: 1 },
            name: { type: 'string', id: 2 },
            initializer: { rule: 'repeated', type: 'TensorProto', id: 5 },
            docString: { type: 'string', id: 10 },
            input: { rule: 'repeated', type: 'ValueInfoProto', id: 11 },
            output: { rule: 'repeated', type: 'ValueInfoProto', id: 12 },
            valueInfo: { rule: 'repeated', type: 'ValueInfoProto', id: 13 },
          },
        },
        TensorProto: {
          fields: {
            dims: { rule: 'repeated', type: 'int64', id: 1 },
            dataType: { type: 'int32', id: 2 },
            floatData: { rule: 'repeated', type: 'float', id: 4, options: { packed: true } },
            int32Data: { rule: 'repeated', type: 'int32', id: 5, options: { packed: true } },
            stringData: { rule: 'repeated', type: 'bytes', id: 6 },
            int64Data: { rule: 'repeated', type: 'int64', id: 7, options: { packed: true } },
            name: { type: 'string', id: 8 },
            rawData: { type: 'bytes', id: 9 },
            doubleData: { rule: 'repeated', type: 'double', id: 10, options: { packed: true } },
            docString: { type: 'string', id: 12 },
          },
        },
        TensorShapeProto: {
          fields: {
            dim: { rule: 'repeated', type: 'Dimension', id: 1 },
          },
          nested: {
            Dimension: {
              oneofs: { value: { oneof: ['dimValue', 'dimParam'] } },
              fields: {
                dimValue: { type: 'int64', id: 1 },
                dimParam: { type: 'string', id: 2 },
                denotation: { type: 'string', id: 3 },
              },
            },
          },
        },
        TypeProto: {
          oneofs: { value: { oneof: ['tensorType'] } },
          fields: {
            tensorType: { type: 'Tensor', id: 1 },
            denotation: { type: 'string', id: 6 },
          },
          nested: {
            Tensor: {
              fields: {
                elemType: { type: 'int32', id: 1 },
                shape: { type: 'TensorShapeProto', id: 2 },
              },
            },
          },
        },
        OperatorSetIdProto: {
          fields: {
            domain: { type: 'string', id: 1 },
            version: { type: 'int64', id: 2 },
          },
        },
      },
    },
  },
};

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, INT64: 7, STRING: 8, BOOL: 9, DOUBLE: 11 } as const;
export type DataTypeCode = (typeof DataType)[keyof typeof DataType];

/** AttributeProto.AttributeType values used here. */
export const AttributeType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7, STRINGS: 8 } as const;

export interface TensorMessage {
  name: string;
  dims: number[];
  dataType: DataTypeCode;
  rawData?: Uint8Array;
  stringData?: Uint8Array[];
}

export interface AttributeMessage {
  name: string;
  type: number;
  f?: number;
  i?: number;
  s?: Uint8Array;
  t?: TensorMessage;
  floats?: number[];
  ints?: number[];
  strings?: Uint8Array[];
}

export interface NodeMessage {
  input: string[];
  output: string[];
  name: string;
  opType: string;
  domain?: string;
  attribute: AttributeMessage[];
}

/** A dimension: a size, or a name for one that varies (the rows). */
export type Dimension = number | string;

export interface ValueInfoMessage {
  name: string;
  type: { tensorType: { elemType: DataTypeCode; shape: { dim: ({ dimValue: number } | { dimParam: string })[] } } };
  docString?: string;
}

export interface ModelMessage {
  irVersion: number;
  producerName: string;
  producerVersion: string;
  docString?: string;
  modelVersion?: number;
  opsetImport: { domain: string; version: number }[];
  metadataProps: { key: string; value: string }[];
  graph: {
    name: string;
    docString?: string;
    node: NodeMessage[];
    initializer: TensorMessage[];
    input: ValueInfoMessage[];
    output: ValueInfoMessage[];
  };
}

let root: protobuf.Root | undefined;

function modelType(): protobuf.Type {
  root ??= protobuf.Root.fromJSON(DESCRIPTOR);
  return root.lookupType('onnx.ModelProto');
}

/** The ONNX file's bytes of a model. */
export function encodeModel(model: ModelMessage): Uint8Array {
  const type = modelType();
  return type.encode(type.fromObject(model)).finish();
}

/** The model a file's bytes hold (for tests and the model card: names, metadata). */
export function decodeModel(bytes: Uint8Array): ModelMessage {
  const type = modelType();
  return type.toObject(type.decode(bytes), { longs: Number, bytes: Array, defaults: false }) as unknown as ModelMessage;
}
