// A command that reads the marker off its shell's command line can print it early and stream on:
// the filter keeps the cwd line and drops the rest, rather than growing one string for ever.
import { CwdMarkerFilter } from '../../../src/environments/shell/cwd-marker-filter';

test('what follows a (forged) marker is dropped, however much of it comes', () => {
  const filter = new CwdMarkerFilter('\u001e__hermes_cwd_0123456789abcdef__', false);
  expect(filter.push('output\n\u001e__hermes_cwd_0123456789abcdef__/forged\n')).toBe('output\n');
  const megabyte = 'A'.repeat(1024 * 1024);
  // Past V8's longest string (about 512 Mi characters), where a kept tail would throw.
  for (let index = 0; index < 600; index += 1) expect(filter.push(megabyte)).toBe('');
  expect(filter.found).toBe(true);
  expect(filter.cwd).toBe('/forged');
});

test('a cwd line split across chunks is still read whole', () => {
  const filter = new CwdMarkerFilter('MARK', false);
  expect(filter.push('text MARK/home/')).toBe('text ');
  expect(filter.found).toBe(false);
  filter.push('user\nmore');
  expect(filter.cwd).toBe('/home/user');
});
