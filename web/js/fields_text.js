// The one-line text a layer row shows for its fields: `out_channels: 64, kernel: 3, padding: 1`.
// Values are JSON where they parse as JSON, bare words otherwise (`padding: same`), so that a
// person can type them; arrays and objects use brackets/braces as in JSON.
// @ts-check

const SKIP = new Set(['type', 'name']);

function formatValue(v) {
  if (typeof v === 'string') return /^[A-Za-z_$][\w.$-]*$/.test(v) && !['true', 'false', 'null'].includes(v) ? v : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  return JSON.stringify(v);
}

/** The fields of a layer item other than type and name. */
export function formatFields(item) {
  return Object.entries(item)
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `${k}: ${formatValue(v)}`)
    .join(', ');
}

function parseValue(text) {
  const t = text.trim();
  if (t === '') throw new SyntaxError('empty value');
  try {
    return JSON.parse(t);
  } catch {
    if (t.startsWith('[') && t.endsWith(']')) {
      const inner = t.slice(1, -1).trim();
      return inner === '' ? [] : splitTop(inner).map(parseValue);
    }
    if (/^[\w.$-]+$/.test(t)) return t;
    throw new SyntaxError(`cannot read "${t}"`);
  }
}

/** Splits on commas outside brackets, braces and quotes. */
function splitTop(text) {
  const parts = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i += 1;
      else if (c === '"') quote = false;
    } else if (c === '"') quote = true;
    else if (c === '[' || c === '{') depth += 1;
    else if (c === ']' || c === '}') depth -= 1;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** Parses the row text back into fields; throws SyntaxError naming what it cannot read. */
export function parseFields(text) {
  const out = {};
  for (const part of splitTop(text)) {
    if (part.trim() === '') continue;
    const m = /^\s*([A-Za-z_][\w]*)\s*[:=]\s*([\s\S]*)$/.exec(part);
    if (!m) throw new SyntaxError(`expected "name: value", not "${part.trim()}"`);
    if (SKIP.has(m[1])) throw new SyntaxError(`"${m[1]}" has its own field`);
    out[m[1]] = parseValue(m[2]);
  }
  return out;
}
