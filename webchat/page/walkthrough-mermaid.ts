// Mermaid for the walkthrough view's page (walkthrough.ts), a script of its
// own (dist/walkthrough/walkthrough-mermaid.js): it is most of the page's
// weight (~5 MB), so the page loads it only when a walkthrough has a diagram
// (docs/benchmarks.md, W1). It hands mermaid to the page through one global.

import mermaid from "mermaid";
import { MERMAID_GLOBAL, type MermaidHolder } from "./walkthrough-mermaid-global.js";

(globalThis as MermaidHolder)[MERMAID_GLOBAL] = mermaid;
