import { CopyOut } from './copy-bytes';

/** A binary COPY of one bytea column holding `values`, as PostgreSQL writes it. */
function binaryCopy(values: Buffer[], extension = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(19);
  Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1').copy(header);
  header.writeUInt32BE(extension.length, 15);
  const tuples = values.map((v) => {
    const t = Buffer.alloc(6);
    t.writeInt16BE(1, 0);
    t.writeInt32BE(v.length, 2);
    return Buffer.concat([t, v]);
  });
  return Buffer.concat([header, extension, ...tuples, Buffer.from([0xff, 0xff])]);
}

describe('CopyOut (a binary COPY of a bytea column, unpacked)', () => {
  const values = [Buffer.from('a,b\n1,2\n'), Buffer.alloc(0), Buffer.from([0, 0xff, 0xfe, 0x80, 10]), Buffer.alloc(5000, 7)];
  const whole = Buffer.concat(values);

  it.each([1, 5, 6, 7, 19, 1000, 1 << 20])('gives the values concatenated, in pieces, whatever the messages (%i bytes each)', (size) => {
    const data = binaryCopy(values, Buffer.from('ext'));
    const copy = new CopyOut('COPY', 1024);
    for (let i = 0; i < data.length; i += size) copy.handleCopyData({ chunk: data.subarray(i, i + size) });
    copy.handleCommandComplete();
    copy.handleReadyForQuery();
    expect(copy.failure).toBeUndefined();
    expect(copy.done).toBe(true);
    expect(copy.ready.slice(0, -1).every((p) => p.length === 1024)).toBe(true);
    expect(Buffer.concat(copy.ready).equals(whole)).toBe(true);
  });

  it('fails on a COPY cut short, a NULL, or a second field', () => {
    const data = binaryCopy(values);
    const cut = new CopyOut('COPY', 1024);
    cut.handleCopyData({ chunk: data.subarray(0, data.length - 10) });
    cut.handleCommandComplete();
    expect(cut.failure?.message).toBe('the COPY ended early');

    const nullValue = new CopyOut('COPY', 1024);
    nullValue.handleCopyData({ chunk: Buffer.concat([data.subarray(0, 19), Buffer.from([0, 1, 0xff, 0xff, 0xff, 0xff])]) });
    expect(nullValue.failure?.message).toBe('a NULL value in the COPY');

    const two = new CopyOut('COPY', 1024);
    two.handleCopyData({ chunk: Buffer.concat([data.subarray(0, 19), Buffer.from([0, 2])]) });
    expect(two.failure?.message).toBe('a COPY tuple of 2 fields, not 1');
  });
});
