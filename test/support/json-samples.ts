// Seeded JSON values full of what a byte-level reader can trip on: brackets,
// quotes, backslashes, newlines, non-ASCII and U+2028, nested objects and
// arrays. For tests that compare a byte path with JSON.parse.

export class JsonSamples {
  constructor(private seed = 42) {}

  /** A value nested up to four levels. */
  value(depth = 1): unknown {
    const pick = this.random();
    if (depth > 3 || pick < 0.3) return this.text();
    if (pick < 0.4) return Math.floor(this.random() * 1000) - 500;
    if (pick < 0.7) return Array.from({ length: Math.floor(this.random() * 4) }, () => this.value(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(this.random() * 4) }, () => [this.text(), this.value(depth + 1)]));
  }

  /** JSON-RPC params: an object or an array. */
  params(): unknown {
    return this.random() < 0.5 ? [this.value()] : { [this.text()]: this.value() };
  }

  text(): string {
    return Array.from({ length: Math.floor(this.random() * 8) }, () => PIECES[Math.floor(this.random() * PIECES.length)]).join("");
  }

  private random(): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2 ** 31;
    return this.seed / 2 ** 31;
  }
}

const PIECES = ["{", "}", "[", "]", '"', "\\", ",", ":", "a", "é", "\n", "\u2028", '"id"'];
