const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;

const isDigit = (code: number | undefined) => code !== undefined && code >= ZERO && code <= NINE;

/** Index past the digits from `at` (at `at` when there are none), not past `to`. */
function digitsEnd(text: Uint8Array, at: number, to: number): number {
  let i = at;
  while (i < to && isDigit(text[i])) i++;
  return i;
}

/**
 * Whether bytes [from, to) of `text` are one JSON number (RFC 8259: `-? (0 | [1-9][0-9]*)
 * (. [0-9]+)? ([eE] [+-]? [0-9]+)?`), read in place: a regular expression needs the bytes as a
 * string first, and an answer passed on has one number checked per call.
 */
export function isJsonNumber(text: Uint8Array, from: number, to: number): boolean {
  let i = from < to && text[from] === MINUS ? from + 1 : from;
  if (i >= to || !isDigit(text[i])) return false;
  i = text[i] === ZERO ? i + 1 : digitsEnd(text, i, to);
  if (i < to && text[i] === DOT) {
    const fraction = digitsEnd(text, i + 1, to);
    if (fraction === i + 1) return false;
    i = fraction;
  }
  if (i < to && (text[i] === LOWER_E || text[i] === UPPER_E)) {
    i++;
    if (i < to && (text[i] === PLUS || text[i] === MINUS)) i++;
    const exponent = digitsEnd(text, i, to);
    if (exponent === i) return false;
    i = exponent;
  }
  return i === to;
}
