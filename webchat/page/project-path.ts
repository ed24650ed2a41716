// Paths as the page shows them: relative to the project when inside it
// (`src/main.rs`), the full path kept for tooltips and for opening the file.
// The project directory comes with the server's hello (main.ts).

import { projectRelative } from "./mentions.js";

let projectDir = "";

export function setProjectDir(dir: string): void {
  projectDir = dir;
}

/** `absolute` relative to the project (`/`-separated) when it is inside it, else as given. */
export function shownPath(absolute: string): string {
  return (projectDir !== "" && projectRelative(absolute, projectDir)) || absolute;
}
