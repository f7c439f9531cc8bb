// What the CLI prints for an error that is not an Error (PGlite throws plain objects): its message,
// else its JSON, never "[object Object]".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorText } from '../../host/args.ts';

test('errorText: an Error, an object with a message or code, any other object as JSON, the rest as text', () => {
  assert.is(errorText(new Error('boom')), 'boom');
  assert.is(errorText({ message: 'disk full' }), 'disk full');
  assert.is(errorText({ code: 'ENOTDIR' }), 'ENOTDIR');
  assert.is(errorText({ name: 'ErrnoError', errno: 54 }), '{"name":"ErrnoError","errno":54}');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.not.match(errorText(cyclic), /object Object/);
  assert.is(errorText('plain'), 'plain');
  assert.is(errorText(42), '42');
  assert.is(errorText(undefined), 'undefined');
});

test.run();
