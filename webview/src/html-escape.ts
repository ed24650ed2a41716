// HTML escaping for text and attribute values: the panel's page and the
// built-in chat's page (webchat/src/page-html.ts) both build HTML with it.

/** `text` safe inside an element or a quoted attribute: & < > " ' as numeric entities. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
