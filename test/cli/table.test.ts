// The CLI's text tables (host/table.ts), behind `saphir ports`, `flash` and `registry device list`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { textTable } from '../../host/table.ts';

test('columns two spaces apart, as wide as their widest cell; the last column and line ends unpadded', () => {
  const t = textTable([
    ['Port', 'Device', 'Version'],
    ['/dev/ttyUSB10', 'SIM-1', '1.2.0'],
    ['/dev/ttyS0', '', ''],
  ]);
  assert.is(t, ['Port           Device  Version', '/dev/ttyUSB10  SIM-1   1.2.0', '/dev/ttyS0'].join('\n'));
});

test('an empty table is an empty text', () => {
  assert.is(textTable([]), '');
});

test.run();
