// The docker backend's stream parsing, without a daemon: Docker's multiplexed frames arrive cut
// anywhere, and the end-of-command marker may be split across chunks.
import { CwdMarkerFilter } from '../../../src/environments/shell/cwd-marker-filter';
import { FrameDemuxer, type StreamKind } from '../../../src/environments/docker/run-exec';

function frame(kind: 1 | 2, text: string): Buffer {
  const body = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = kind;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}

describe('FrameDemuxer', () => {
  test('frames cut at every byte boundary come out whole and in order', () => {
    const stream = Buffer.concat([frame(1, 'out-1\n'), frame(2, 'err-1\n'), frame(1, ''), frame(1, 'out-2\n')]);
    const seen: [StreamKind, string][] = [];
    const demuxer = new FrameDemuxer((kind, data) => seen.push([kind, data.toString()]));
    for (let index = 0; index < stream.length; index += 1) demuxer.push(stream.subarray(index, index + 1));
    expect(seen).toEqual([
      ['stdout', 'out-1\n'],
      ['stderr', 'err-1\n'],
      ['stdout', 'out-2\n'],
    ]);
  });
});

describe('CwdMarkerFilter', () => {
  const marker = '\u001e__hermes_cwd_0123456789abcdef__';

  test('passes output through and keeps the cwd after the marker', () => {
    const filter = new CwdMarkerFilter(marker, false);
    expect(filter.push('hello\n')).toBe('hello\n');
    expect(filter.push(`no newline${marker}/workspace/sub\n`)).toBe('no newline');
    expect(filter.found).toBe(true);
    expect(filter.cwd).toBe('/workspace/sub');
    expect(filter.push('late grandchild output')).toBe('');
  });

  test('a marker split across chunks is still found, and only its possible start is held back', () => {
    const filter = new CwdMarkerFilter(marker, false);
    const pieces = [`text\u001e__her`, 'mes_cwd_0123', `456789abcdef__/tmp\r`, '\n'];
    expect(pieces.map((piece) => filter.push(piece)).join('')).toBe('text');
    expect(filter.cwd).toBe('/tmp');
  });

  test('text that only looks like the start of a marker is released when the stream ends', () => {
    const filter = new CwdMarkerFilter(marker, false);
    expect(filter.push('a\u001e__her')).toBe('a');
    expect(filter.end()).toBe('\u001e__her');
    expect(filter.found).toBe(false);
    expect(filter.cwd).toBeUndefined();
  });
});
