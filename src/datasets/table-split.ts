import type { ColumnPart } from './column-builder';

/** The columns of a table once its first line is read: how many, and which keep their text (ColumnBuilder's forceDict). */
export interface TableLayout {
  width: number;
  text: boolean[];
}

/** A later part of a file (whole lines), read on its own by parseTablePart: its rows and each column's cells. */
export interface TablePart {
  rows: number;
  bytes: number;
  columns: ColumnPart[];
}

/**
 * A file read in two parts at once: parseTable reads the first, up to a line end, and the rest is read
 * elsewhere (parseTablePart) from when the columns are known. The rest's columns are appended to the first's
 * when both were read on the fast path and appending gives what one reading would (ColumnBuilder.canAppend);
 * otherwise parseTable reads on through the rest itself (a quote, a fault: found and reported as they would be).
 */
export interface TableSplit {
  /** The columns are known (the first line is read): the rest can be read from now. */
  started(layout: TableLayout): void;
  /**
   * At the end of the first part: with `adopt` (every line so far read on the fast path), the rest's part is
   * offered to it; resolves with nothing once adopted, else with the rest of the file's chunks, to read here.
   */
  rest(adopt: ((part: TablePart) => boolean) | undefined): Promise<AsyncIterable<Buffer> | undefined>;
}
