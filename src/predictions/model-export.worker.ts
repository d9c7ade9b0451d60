import { parentPort, workerData } from 'node:worker_threads';
import { exportOnnx, modelCard, modelCardMarkdown, OnnxExportRefused } from '../engine';
import type { ModelCardSource } from '../engine';

/** What an export asks of this worker: what the model card is made of (the pipeline among it). */
export type ExportRequest = ModelCardSource;

/** The ONNX file (the model card inside as metadata), or why the model cannot be exported, or a failure. */
export type ExportResponse = { bytes: Uint8Array } | { refused: string } | { error: string };

/**
 * Writes the ONNX file of a model off the API's event loop (its size grows with the model's: a forest of 500 trees,
 * an RBF machine's support vectors), the model card in its metadata as JSON (`model_card`) and Markdown.
 */
function answer(source: ExportRequest): ExportResponse {
  try {
    const card = modelCard(source);
    const { bytes } = exportOnnx(source.pipeline, {
      name: `signet_${source.modelKey}_${source.signatureIndex}`,
      description: modelCardMarkdown(card),
      metadata: {
        model_card: JSON.stringify(card),
        ...(source.analysisId !== undefined ? { analysis_id: source.analysisId } : {}),
        model_key: source.modelKey,
        signature_index: String(source.signatureIndex),
      },
    });
    return { bytes };
  } catch (e) {
    if (e instanceof OnnxExportRefused) return { refused: e.reason };
    return { error: (e as Error).message };
  }
}

parentPort?.postMessage(answer(workerData as ExportRequest));
