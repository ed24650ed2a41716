// The images a page sends with a prompt, checked again by the server
// (webchat/src/prompt-images.ts) with the page's own rules
// (webchat/page/image-check.ts): the kind read from the bytes, the bounds, and
// never an image to an agent that takes none. The page in Chromium:
// test/process/webchat/webchat-images.test.ts.

import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { IMAGE_LIMITS, imageKind, imageRefusal, sizeText } from "../../../webchat/page/image-check.js";
import { promptImages } from "../../../webchat/src/prompt-images.js";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
const GIF = Buffer.from("GIF89a");
const WEBP = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 ")]);

describe("images: their kind and bounds", () => {
  it("reads the kind from the bytes, whatever the name or claimed type", () => {
    assert.equal(imageKind(PNG), "image/png");
    assert.equal(imageKind(JPEG), "image/jpeg");
    assert.equal(imageKind(GIF), "image/gif");
    assert.equal(imageKind(WEBP), "image/webp");
    assert.equal(imageKind(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>")), null, "SVG is a document, not sent");
    assert.equal(imageKind(Buffer.from("RIFF\0\0\0\0WAVE")), null);
    assert.equal(imageKind(new Uint8Array()), null);
  });

  it("says why a file is not attached: too large, not an image, too many, too much together", () => {
    const none = { count: 0, bytes: 0 };
    assert.equal(imageRefusal("a.png", 1000, PNG, none), null);
    assert.equal(imageRefusal("huge.png", 50 * 1024 * 1024, PNG, none), "huge.png is 50.0 MB: the chat sends images up to 2.0 MB. Not attached.");
    assert.match(imageRefusal("notes.txt", 20, Buffer.from("hello"), none)!, /^notes\.txt is not an image the chat can send \(PNG, JPEG, GIF or WebP\)/);
    assert.match(imageRefusal("ninth.png", 10, PNG, { count: IMAGE_LIMITS.count, bytes: 80 })!, /at most 8 images/);
    assert.match(imageRefusal("b.png", 1024 * 1024, PNG, { count: 1, bytes: 2 * 1024 * 1024 })!, /2\.5 MB together \(2\.0 MB attached\)/);
    assert.equal(sizeText(1), "1 KB");
  });
});

describe("images: the server's own check", () => {
  const png = PNG.toString("base64");

  it("sends well-formed images as ACP image content", () => {
    assert.deepEqual(promptImages([{ mimeType: "image/png", data: png }], true), { blocks: [{ type: "image", mimeType: "image/png", data: png }] });
    assert.deepEqual(promptImages(undefined, false), { blocks: [] });
    assert.deepEqual(promptImages([], false), { blocks: [] });
  });

  it("refuses images to an agent that takes none, and a page's images that are not what they claim or over the bounds", () => {
    const refused = (images: unknown, takes = true): string => {
      const result = promptImages(images, takes);
      assert.ok("refused" in result, JSON.stringify(images).slice(0, 100));
      return result.refused;
    };
    assert.match(refused([{ mimeType: "image/png", data: png }], false), /does not take images/);
    assert.match(refused([{ mimeType: "image/jpeg", data: png }]), /not a PNG, JPEG, GIF or WebP image of the type it claims/);
    assert.match(refused([{ mimeType: "image/svg+xml", data: Buffer.from("<svg/>").toString("base64") }]), /of the type it claims/);
    assert.match(refused([{ mimeType: "image/png", data: "not base64!" }]), /not base64/);
    assert.match(refused([{ mimeType: "image/png" }]), /not base64/);
    assert.match(refused([null]), /not base64/);
    assert.match(refused("image"), /at most 8 images/);
    assert.match(refused(Array.from({ length: 9 }, () => ({ mimeType: "image/png", data: png }))), /at most 8 images/);
    const big = Buffer.concat([PNG, Buffer.alloc(IMAGE_LIMITS.each)]).toString("base64");
    assert.match(refused([{ mimeType: "image/png", data: big }]), /over the chat's bounds/);
  });
});
