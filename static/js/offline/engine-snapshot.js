// The engine's memory snapshot as build_engine ships it (referee/offline_engine.py writes it):
// Pyodide's memory with its all-zero 4 KB pages left out, then gzipped. About half of the 31 MB
// is zeros; leaving them out halves what the tablet has to inflate at every start.
//
// Inflated layout, little-endian: "KSNAP1\0\0", the memory's size, the number of runs, then each
// run's (offset, length), then the runs' bytes one after the other. Every byte not in a run is 0.

const MAGIC = "KSNAP1\0\0";

/** The memory the snapshot holds (a Uint8Array), from its inflated bytes. */
export function expandSnapshot(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = new TextDecoder().decode(bytes.subarray(0, 8));
  if (magic !== MAGIC) throw new Error("the engine snapshot is not in build_engine's format");
  const size = view.getUint32(8, true);
  const runs = view.getUint32(12, true);
  const memory = new Uint8Array(size); // zeros, as the pages left out were
  let at = 16 + runs * 8;
  for (let run = 0; run < runs; run++) {
    const offset = view.getUint32(16 + run * 8, true);
    const length = view.getUint32(20 + run * 8, true);
    if (offset + length > size || at + length > bytes.byteLength) throw new Error("the engine snapshot is cut short");
    memory.set(bytes.subarray(at, at + length), offset);
    at += length;
  }
  return memory;
}

/** Inflates the shipped snapshot (gzip; or already inflated by a server that called it gzip). */
export async function inflateSnapshot(buffer) {
  let bytes = new Uint8Array(buffer);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  }
  return expandSnapshot(bytes);
}
