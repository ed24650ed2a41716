// A websocket message's text. The `ws` library hands a message over as a
// Buffer (its default), an ArrayBuffer or a list of fragments, by the socket's
// binaryType; String() of the last two is not the text. (Typed structurally so
// this toolkit needs no `ws` import.)

/** The UTF-8 text of a `ws` message, whichever of its three shapes it came in. */
export function frameText(data: Buffer | ArrayBuffer | readonly Buffer[]): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString("utf8");
  return Buffer.concat(data).toString("utf8");
}
