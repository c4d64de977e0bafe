// Number formatting, the page's only one (tests/js/page_design.test.mjs keeps it so): counts
// use decimal prefixes (G = 10^9, as GMACs are published); bytes are shown in binary
// (GiB = 2^30) or decimal (GB = 10^9) units, always labelled; times in s or ms; rates and
// other engine figures to three significant digits.
// @ts-check

export const BINARY = 'GiB';
export const DECIMAL = 'GB';

const BINARY_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
const DECIMAL_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** Bytes in one "GiB" or "GB" of the memory fields. @param {string} units @returns {number} */
export function bytesPerUnit(units) {
  return units === DECIMAL ? 1e9 : 1073741824;
}

/** The step between prefixes of the byte units shown: 1000 (kB, MB, GB) or 1024 (KiB, MiB,
 *  GiB); chart ticks are round in it. @param {string} units @returns {number} */
export function unitStep(units) {
  return units === DECIMAL ? 1000 : 1024;
}

/** @param {number} value */
function threeDigits(value) {
  if (value >= 100) return value.toFixed(1);
  if (value >= 10) return value.toFixed(2);
  return value.toFixed(2);
}

/** "97.49 MiB" / "102.23 MB" @param {number} bytes @param {string} units @returns {string} */
export function formatBytes(bytes, units) {
  const base = unitStep(units);
  const names = units === DECIMAL ? DECIMAL_UNITS : BINARY_UNITS;
  let value = Math.abs(bytes);
  let i = 0;
  while (value >= base && i < names.length - 1) {
    value /= base;
    i += 1;
  }
  const sign = bytes < 0 ? '−' : '';
  return i === 0 ? `${sign}${value} B` : `${sign}${threeDigits(value)} ${names[i]}`;
}

/** "25.56 M" @param {number} count @returns {string} */
export function formatCount(count) {
  const names = ['', 'K', 'M', 'G', 'T', 'P', 'E'];
  let value = Math.abs(count);
  let i = 0;
  while (value >= 1000 && i < names.length - 1) {
    value /= 1000;
    i += 1;
  }
  const sign = count < 0 ? '−' : '';
  return i === 0 ? `${sign}${value}` : `${sign}${threeDigits(value)} ${names[i]}`;
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
