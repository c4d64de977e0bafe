// The layer the reader picked, shared by the layer graph, the per-layer table and the memory
// timeline: each tells the others through one event, so none imports another.
// @ts-check

/** A pick: the row's index in report.layers and who made it (a view ignores its own picks). */
/** @typedef {{index: number, from: string}} Pick */

const target = new EventTarget();
/** @type {Pick | null} */
let current = null;

/** Picks row `index` of the report's layers. @param {number} index @param {string} from */
export function selectLayer(index, from) {
  current = { index, from };
  target.dispatchEvent(new CustomEvent('select', { detail: current }));
}

/** The current pick's row index, or -1. */
export const selectedLayer = () => (current ? current.index : -1);

/** Calls `listener` on every pick another view makes. @param {string} self
 *  @param {(pick: Pick) => void} listener */
export function onSelectLayer(self, listener) {
  target.addEventListener('select', (e) => {
    const pick = /** @type {CustomEvent<Pick>} */ (e).detail;
    if (pick.from !== self) listener(pick);
  });
}

/** Forgets the pick (a new model: its rows are other layers). */
export function clearSelection() {
  current = null;
}
