// Input echoed in a message (a capture's bad word, a partial code) is shown with its control characters
// as \xNN: a capture file with ESC sequences must not drive the user's terminal.

/** `s` with C0 and C1 control characters and DEL escaped, cut to `max` characters (… when cut). */
export function visible(s: string, max = 40): string {
  const cut = s.length > max ? s.slice(0, max) : s;
  const shown = cut.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0'),
  );
  return cut === s ? shown : shown + '…';
}
