// uniqueItems in linear time: each item is found again by a canonical form of it, never compared with every
// earlier item (Ajv's own keyword compares every pair). The compiled validators (validators.js) call this.

/**
 * One text for every JSON value equal to `value` as JSON Schema compares them (members in any order, sorted
 * here; 1 and 1.0 are one number in JavaScript already; true is not 1); null when it holds a NaN, which equals
 * nothing (as in the Python package). Built with a stack, not by recursion: an item may be deep.
 */
export function canonical(value) {
  const out = [];
  const pending = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (node instanceof Token) {
      out.push(node.text);
    } else if (node === null) {
      out.push("null");
    } else if (typeof node === "string") {
      out.push(JSON.stringify(node));
    } else if (typeof node === "number") {
      if (Number.isNaN(node)) return null;
      out.push(String(node)); // -0 is "0", as 0 === -0
    } else if (typeof node === "boolean") {
      out.push(node ? "true" : "false");
    } else if (Array.isArray(node)) {
      pending.push(CLOSE_ARRAY);
      for (let position = node.length - 1; position >= 0; position--) {
        pending.push(node[position]);
        if (position > 0) pending.push(COMMA);
      }
      pending.push(OPEN_ARRAY);
    } else if (typeof node === "object") {
      const names = Object.keys(node).sort();
      pending.push(CLOSE_OBJECT);
      for (let position = names.length - 1; position >= 0; position--) {
        pending.push(node[names[position]]);
        pending.push(new Token(`${JSON.stringify(names[position])}:`));
        if (position > 0) pending.push(COMMA);
      }
      pending.push(OPEN_OBJECT);
    } else {
      out.push(`?${typeof node}:${String(node)}`); // no JSON form (undefined, a bigint): equal ones still match
    }
  }
  return out.join("");
}

class Token {
  constructor(text) {
    this.text = text;
  }
}

const OPEN_ARRAY = new Token("[");
const CLOSE_ARRAY = new Token("]");
const OPEN_OBJECT = new Token("{");
const CLOSE_OBJECT = new Token("}");
const COMMA = new Token(",");

/**
 * Every item of `items` equal to an earlier one, as [index, index of the first equal item] pairs in order.
 * Strings (most items: tags) are keys of their own map as they are; other items by their canonical form.
 */
export default function repeatedItems(items) {
  const strings = new Map();
  const others = new Map();
  const found = [];
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const table = typeof item === "string" ? strings : others;
    const key = typeof item === "string" ? item : canonical(item);
    if (key === null) continue;
    const earlier = table.get(key);
    if (earlier === undefined) table.set(key, index);
    else found.push([index, earlier]);
  }
  return found;
}
