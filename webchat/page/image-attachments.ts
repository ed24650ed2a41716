// Images pasted into the composer or dropped on the chat (docs/webchat.md:
// images): shown under the input as thumbnails, each with × to remove it, and
// sent with the next message as ACP image content. Only when the agent says it
// takes images (promptCapabilities.image); otherwise, and for a file that is too
// large or not an image, the composer's notice says why and nothing is attached.
// The kind and bounds are image-check.ts's, which the server applies again.

import "./acp-features.css";
import { h, WHOLE_PAGE, type PageScope } from "./dom.js";
import { imageKind, imageRefusal, sizeText, type PromptImage } from "./image-check.js";

interface Attached extends PromptImage {
  name: string;
  bytes: number;
}

export class ImageAttachments {
  readonly element = h("div", { id: "image-attachments", hidden: "" });
  private attached: Attached[] = [];
  /** The agent takes images (the session says so). */
  accepts = false;

  /** `notify`: the composer's notice (null clears it); `scope`: the tab this belongs to. */
  constructor(
    private readonly notify: (message: string | null) => void,
    scope: PageScope = WHOLE_PAGE,
  ) {
    const listening = { signal: scope.signal };
    document.addEventListener(
      "paste",
      (event) => {
        const files = [...(event.clipboardData?.files ?? [])];
        if (files.length === 0 || !scope.active()) return; // text pastes as text
        event.preventDefault();
        void this.add(files);
      },
      listening,
    );
    // Files from the system's file manager; VS Code's explorer drops a uri-list: mentions (composer.ts).
    document.addEventListener(
      "dragover",
      (event) => {
        if (scope.active() && droppedFiles(event)) event.preventDefault();
      },
      listening,
    );
    document.addEventListener(
      "drop",
      (event) => {
        if (!scope.active() || !droppedFiles(event) || event.defaultPrevented) return;
        event.preventDefault();
        void this.add([...(event.dataTransfer?.files ?? [])]);
      },
      listening,
    );
  }

  /** Attaches what is an image within the bounds; says why about the rest. */
  async add(files: File[]): Promise<void> {
    if (!this.accepts) return this.notify("This agent does not take images (it does not offer promptCapabilities.image): nothing attached.");
    const refusals: string[] = [];
    for (const file of files) {
      const name = file.name || "The pasted image";
      const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
      const refused = imageRefusal(name, file.size, head, { count: this.attached.length, bytes: this.totalBytes() });
      if (refused) {
        refusals.push(refused);
        continue;
      }
      const bytes = new Uint8Array(await file.arrayBuffer());
      const mimeType = imageKind(bytes);
      if (mimeType) this.attached.push({ name, bytes: bytes.length, mimeType, data: base64(bytes) });
    }
    this.notify(refusals.length > 0 ? refusals.join(" ") : null);
    this.render();
  }

  get count(): number {
    return this.attached.length;
  }

  /** The images to send with the message; `clear` once it is sent. */
  images(): PromptImage[] {
    return this.attached.map(({ mimeType, data }) => ({ mimeType, data }));
  }

  clear(): void {
    this.attached = [];
    this.render();
  }

  private totalBytes(): number {
    return this.attached.reduce((sum, image) => sum + image.bytes, 0);
  }

  private render(): void {
    this.element.hidden = this.attached.length === 0;
    this.element.replaceChildren(
      ...this.attached.map((image, index) => {
        const remove = h("button", { class: "attachment-remove", title: `Remove ${image.name}`, "aria-label": `Remove ${image.name}` }, "×");
        remove.addEventListener("click", () => {
          this.attached.splice(index, 1);
          this.render();
        });
        const label = `${image.name} · ${sizeText(image.bytes)}`;
        return h(
          "div",
          { class: "attachment", title: label },
          h("img", { src: `data:${image.mimeType};base64,${image.data}`, alt: image.name }),
          h("span", { class: "attachment-name" }, label),
          remove,
        );
      }),
    );
  }
}

/** A drop of files that is not VS Code's (no uri-list: those are mentions). */
function droppedFiles(event: DragEvent): boolean {
  const types = event.dataTransfer?.types ?? [];
  return types.includes("Files") && !types.includes("text/uri-list") && !types.includes("application/vnd.code.uri-list");
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let index = 0; index < bytes.length; index += 0x8000) binary += String.fromCharCode(...bytes.subarray(index, index + 0x8000));
  return btoa(binary);
}
