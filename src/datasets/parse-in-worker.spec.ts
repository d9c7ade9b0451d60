import { Client } from 'pg';
import { freshDatabase } from '../../test/utils';
import { PipedBytes } from '../common/blob-channel';
import { liveParserThreads, parseStoredTable } from './parse-in-worker';
import { TableError } from './table-parser';

const OPTIONS = { separator: ',', hasFeatureHeaders: true, hasSampleHeaders: false, hasSamplesInRows: true };

/** Waits (up to 2 s) for every parser thread to have exited. */
async function threadsEnded(): Promise<number> {
  for (let i = 0; i < 200 && liveParserThreads() > 0; i++) await new Promise((r) => setTimeout(r, 10));
  return liveParserThreads();
}

describe('parseStoredTable (the engine process reads the stored file from the database)', () => {
  let url: string;
  let client: Client;
  beforeAll(async () => {
    url = await freshDatabase();
    client = new Client({ connectionString: url });
    await client.connect();
    await client.query(`INSERT INTO users (username, password_hash) VALUES ('u', 'x')`);
  });
  afterAll(async () => {
    await client.end();
  });
  afterEach(async () => {
    expect(await threadsEnded()).toBe(0);
  });

  /** Stores `text` as a file of chunks of `chunkBytes` (the last `lost` of them then deleted); its key and size. */
  async function stored(text: string, chunkBytes: number, lost = 0): Promise<{ filePk: string; sizeInBytes: number }> {
    const bytes = Buffer.from(text, 'utf8');
    const chunks = Math.ceil(bytes.length / chunkBytes);
    const [file] = (
      await client.query<{ id: string }>(
        `INSERT INTO files (user_id, file_id, size_in_bytes, chunk_count) SELECT id, md5(random()::text), $1, $2 FROM users RETURNING id`,
        [bytes.length, chunks],
      )
    ).rows;
    for (let i = 0; i < chunks; i++) {
      await client.query('INSERT INTO file_chunks (file_pk, seq, data) VALUES ($1, $2, $3)', [
        file.id,
        i,
        bytes.subarray(i * chunkBytes, (i + 1) * chunkBytes),
      ]);
    }
    if (lost) await client.query('DELETE FROM file_chunks WHERE file_pk = $1 AND seq >= $2', [file.id, chunks - lost]);
    return { filePk: String(file.id), sizeInBytes: bytes.length };
  }

  it('gives the packed columns, a large one still in its pipe (read once, in column order), and ends the process on release', async () => {
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff;
    const rows = Array.from({ length: 40_000 }, (_, i) => `${(rnd() * 1000).toPrecision(10)},${i % 3 ? 'x' : 'y'}`);
    const text = `a,b\n${rows.join('\n')}\n`;
    const file = await stored(text, 100_000);
    const { table, release } = await parseStoredTable({ databaseUrl: url, ...file }, OPTIONS);
    try {
      expect(table.sampleCount).toBe(40_000);
      expect(table.columns.map((c) => [c.name, c.encoding, !!c.raw])).toEqual([
        ['a', 'f64', true],
        ['b', 'dict', false],
      ]);
      // the measurements, kept raw, wait in the pipe; the small packed codes came inside the message
      const piped = table.columns[0].packed as PipedBytes;
      expect(piped).toBeInstanceOf(PipedBytes);
      expect(table.columns[1].packed).toBeInstanceOf(Uint8Array);
      const pieces = [];
      for await (const piece of piped.pieces()) pieces.push(Buffer.from(piece));
      const values = new Float64Array(new Uint8Array(Buffer.concat(pieces)).buffer);
      expect(Array.from(values.subarray(0, 2))).toEqual(rows.slice(0, 2).map((r) => Number(r.split(',')[0])));
      expect(values.length).toBe(40_000);
    } finally {
      release();
    }
  });

  it('rejects with TableError for a fault in the file, and with an error for a file that lost chunks', async () => {
    const ragged = await stored('a,b\n1,2\n3\n', 4);
    await expect(parseStoredTable({ databaseUrl: url, ...ragged }, OPTIONS)).rejects.toThrow(TableError);
    const lost = await stored(`a,b\n${'1,2\n'.repeat(1000)}`, 1000, 1);
    await expect(parseStoredTable({ databaseUrl: url, ...lost }, OPTIONS)).rejects.toThrow(/lost chunks/);
    // a file of over 8 MiB is read by a thread of its own: its failure comes back the same way
    const large = await stored(`a,b\n${'1,2\n'.repeat(2_300_000)}`, 1 << 20, 1);
    expect(large.sizeInBytes).toBeGreaterThan(8 * 2 ** 20);
    await expect(parseStoredTable({ databaseUrl: url, ...large }, OPTIONS)).rejects.toThrow(/lost chunks/);
  });

  it('rejects at once on a quote in the middle of a field, with more lines after it, naming the line', async () => {
    for (const text of ['a,b\n1,x"y\n2,y\n', 'a,b\n1,"x"y\n2,y\n']) {
      const failure = parseStoredTable({ databaseUrl: url, ...(await stored(text, 1 << 20)) }, OPTIONS);
      await expect(failure).rejects.toThrow(TableError);
      await expect(failure).rejects.toThrow(/^line 2: .*quote/);
    }
  });

  it('ends the engine process when its signal aborts while it parses', async () => {
    const file = await stored(`a,b\n${'1,2\n'.repeat(200_000)}`, 65_536);
    const during = new AbortController();
    const parsing = parseStoredTable({ databaseUrl: url, ...file }, OPTIONS, during.signal);
    setTimeout(() => during.abort(new Error('lease lost')), 20);
    await expect(parsing).rejects.toThrow('lease lost');
  });
});
