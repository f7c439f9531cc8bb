// What a scanner adds around a code, removed by every stream decoder (docs/sph1.md: transport).

/**
 * `text` split as `[text, aim, code]`: `aim` is its leading AIM symbology identifier (`]`, the
 * symbology, a modifier: `]Q1`, `]Q0`…) or '' when it has none, `code` the rest without any CR, LF and
 * Tab at its end, in any order. Neither `]` nor those controls are Base45: an SPH1 code loses nothing.
 */
export function unframe(text: string): RegExpExecArray {
  return /^(\]..|)([^]*?)[\r\n\t]*$/.exec(text)!;
}
