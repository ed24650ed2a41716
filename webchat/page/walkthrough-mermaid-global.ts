// The one global through which walkthrough-mermaid.ts hands mermaid to the
// walkthrough view's page (walkthrough.ts): types only, and the name.

import type { Mermaid } from "mermaid";

export const MERMAID_GLOBAL = "symposiumWalkthroughMermaid";

export interface MermaidHolder {
  [MERMAID_GLOBAL]?: Mermaid;
}
