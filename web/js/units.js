// Number formatting, the page's only one (tests/js/page_design.test.mjs keeps it so): counts
// use decimal prefixes (G = 10^9, as GMACs are published); bytes are shown in binary
// (GiB = 2^30) or decimal (GB = 10^9) units, always labelled, from the engine's unit tables;
// times in s or ms; rates and other engine figures to three significant digits.
// @ts-check

export const BINARY = 'GiB';
export const DECIMAL = 'GB';

/** @typedef {import('./types').NumberUnits} NumberUnits */
/** @typedef {import('./types').UnitPrefixes} UnitPrefixes */

/** The engine's unit tables (dlcost::numberUnitsJson), installed once by dlcost.js's ready():
 *  the step and names of each convention and the decimals of a scaled figure are the
 *  engine's, not written here again.
 *  @type {NumberUnits | null} */
let tables = null;

/** Installs the engine's unit tables; the formatters below need them.
 *  @param {NumberUnits} numberUnits */
export function setNumberUnits(numberUnits) {
  tables = numberUnits;
}

/** @returns {NumberUnits} */
function units() {
  if (!tables) throw new Error('units.js: setNumberUnits() first (dlcost.js ready() does it)');
  return tables;
}

/** @param {string} name @returns {UnitPrefixes} */
const byteTable = (name) => units().bytes[name === DECIMAL ? DECIMAL : BINARY];

/** The step between prefixes of the byte units shown: 1000 (kB, MB, GB) or 1024 (KiB, MiB,
 *  GiB); chart ticks are round in it. @param {string} name @returns {number} */
export function unitStep(name) {
  return byteTable(name).step;
}

/** `value` with `decimals` decimals as C's printf("%.*f") writes it, which the CLI's text uses
 *  (core/src/base/units.cpp): the exact value rounded to the nearest, and a value exactly halfway
 *  to the even digit. toFixed rounds that half away from zero instead: 6.125 MiB (vgg11's
 *  features.3, 6,422,528 B) is "6.12" in printf and "6.13" in toFixed.
 *  @param {number} value (not negative, finite) @param {number} decimals @returns {string} */
export function fixedAsPrintf(value, decimals) {
  const text = value.toFixed(decimals);
  // Far from halfway (nearly every figure): toFixed's digits are printf's.
  const scaled = value * 10 ** decimals;
  if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-6 * Math.max(1, scaled)) return text;
  // Halfway exactly when value × 2 × 10^decimals is an odd integer; a double is m × 2^e, so
  // that is decided exactly in integers (BigInt), never by a rounded product.
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const mantissa = (bits & 0xfffffffffffffn) | (biased ? 0x10000000000000n : 0n);
  const shift = BigInt(1075 - Math.max(biased, 1)); // value = mantissa / 2^shift
  if (shift <= 0n) return text; // an integer: never halfway
  const twice = mantissa * 2n * 10n ** BigInt(decimals);
  const denominator = 1n << shift;
  if (twice % denominator !== 0n) return text;
  const odd = twice / denominator; // value × 2 × 10^decimals
  if (odd % 2n === 0n) return text;
  const below = (odd - 1n) / 2n; // the two neighbours: below and below + 1
  const even = below % 2n === 0n ? below : below + 1n;
  const digits = even.toString().padStart(decimals + 1, '0');
  return decimals ? `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` : digits;
}

/** A figure scaled to a prefix with the engine's decimals (dlcost::ScaledDecimals, which
 *  core/src/base/units.cpp prints with too). @param {number} value (not negative) */
function scaledDigits(value) {
  const d = units().scaled_decimals;
  return fixedAsPrintf(value, value >= d.large_from ? d.large_decimals : d.decimals);
}

/** `value` in the largest prefix of `table` it reaches: "97.49 MiB", "25.56 M", "512 B".
 *  @param {number} value @param {UnitPrefixes} table @returns {string} */
function scaled(value, table) {
  let v = Math.abs(value);
  let i = 0;
  while (v >= table.step && i < table.names.length - 1) {
    v /= table.step;
    i += 1;
  }
  const sign = value < 0 ? '−' : '';
  const name = table.names[i] ? ` ${table.names[i]}` : '';
  return i === 0 ? `${sign}${v}${name}` : `${sign}${scaledDigits(v)}${name}`;
}

/** "97.49 MiB" / "102.23 MB" @param {number} bytes @param {string} name @returns {string} */
export function formatBytes(bytes, name) {
  return scaled(bytes, byteTable(name));
}

/** "25.56 M" @param {number} count @returns {string} */
export function formatCount(count) {
  return scaled(count, units().count);
}

/** "25,557,032" @param {number} value @returns {string} */
export function groupDigits(value) {
  // A regex, not toLocaleString: that builds an Intl formatter per call, too slow for tables.
  const sign = value < 0 ? '-' : '';
  return sign + String(Math.round(Math.abs(value))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** "[3, 224, 224]" -> "3×224×224" @param {unknown} shape @returns {string} */
export function formatShape(shape) {
  return Array.isArray(shape) ? shape.join('×') : '';
}

/** Three significant digits ("0.0123", "45.6", "1.23e+4"). @param {number} value
 *  @param {number} [digits] @returns {string} */
export function formatSignificant(value, digits = 3) {
  return Number(value).toPrecision(digits);
}

/** A time in seconds: "412 ms" below one second, else "1.23 s". @param {number} seconds
 *  @returns {string} */
export function formatSeconds(seconds) {
  return seconds < 1 ? `${formatSignificant(seconds * 1000)} ms` : `${formatSignificant(seconds)} s`;
}

/** A rate or another figure with a fraction: digits grouped from 100 up ("1,234"), three
 *  significant digits below ("45.6"). @param {number} value @returns {string} */
export function formatRate(value) {
  return value >= 100 ? groupDigits(value) : formatSignificant(value);
}

/** A share in [0, 1] as a percentage, one decimal by default: 0.4213 -> "42.1".
 *  @param {unknown} share @param {number} [digits] @returns {string} */
export function formatPercent(share, digits = 1) {
  return typeof share === 'number' ? (share * 100).toFixed(digits) : '0';
}

/** A context length or a count of users as people write them: whole multiples of 1024 in k
 *  (131072 -> "128k"), others as they are. @param {number} n @returns {string} */
export function formatContext(n) {
  return n >= 1024 && n % 1024 === 0 ? `${n / 1024}k` : String(n);
}
